import ChartCast
import Foundation

// The dashboard, declared like Swift Charts: what is charted, not the data.
let cpu = Chart("cpu", title: "CPU") {
    AreaMark(x: .value("Time", Date.self), y: .value("% of all cores", Double.self))
        .foregroundStyle(by: .series("user", "system", "iowait"))
}
.chartYScale(domain: 0...100)
.window(600)
.retention(.days(7))

let load = Chart("load", title: "Load average") {
    LineMark(x: .value("Time", Date.self), y: .value("Runnable tasks", Double.self))
        .foregroundStyle(by: .series("1 min", "5 min", "15 min"))
}
.window(600)

let memory = Chart("memory", title: "Memory") {
    AreaMark(x: .value("Time", Date.self), y: .value("MiB", Double.self))
        .foregroundStyle(by: .series("used", "cached", "free"))
}
.window(600)

let network = Chart("network", title: "Network") {
    LineMark(x: .value("Time", Date.self), y: .value("KiB/s", Double.self))
        .foregroundStyle(by: .series("received", "sent"))
}
.window(600)

// Flags: --port N (default 8080), --host ADDR, --once (publish one reading and exit: a smoke test).
var port = 8080, host = "127.0.0.1", once = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--port": port = arguments.popFirst().flatMap { Int($0) } ?? port
    case "--host": host = arguments.popFirst() ?? host
    case "--once": once = true
    default:
        FileHandle.standardError.write(Data("usage: system-monitor [--host ADDR] [--port N] [--once]\n".utf8))
        exit(2)
    }
}

do {
    let dashboard = try Dashboard("System monitor") { cpu; load; memory; network }
    let server = ChartCastServer(options: ServerOptions(host: host, port: port), dashboard: dashboard)
    let bound = try server.start()
    print("system-monitor: http://\(host):\(bound)/ (Ctrl-C to stop)")

    guard var previous = ProcSample.read() else {
        FileHandle.standardError.write(Data("system-monitor: /proc is not readable here\n".utf8))
        exit(1)
    }
    while true {
        Thread.sleep(forTimeInterval: 1)
        guard let now = ProcSample.read() else { continue }
        let ticks = max(1, now.cpu.total - previous.cpu.total)
        let seconds = max(0.001, now.at.timeIntervalSince(previous.at))
        try server.publish(to: cpu, x: now.at, values: [
            "user": 100 * (now.cpu.user - previous.cpu.user) / ticks,
            "system": 100 * (now.cpu.system - previous.cpu.system) / ticks,
            "iowait": 100 * (now.cpu.iowait - previous.cpu.iowait) / ticks,
        ])
        try server.publish(to: load, x: now.at, values: ["1 min": now.load.0, "5 min": now.load.1, "15 min": now.load.2])
        try server.publish(to: memory, x: now.at, values: ["used": now.memory.used, "cached": now.memory.cached, "free": now.memory.free])
        let network = try server.publish(to: network, x: now.at, values: [
            "received": (now.network.received - previous.network.received) / 1024 / seconds,
            "sent": (now.network.sent - previous.network.sent) / 1024 / seconds,
        ])
        previous = now
        if once {
            let charts = server.charts()?.map(\.id) ?? []
            print("system-monitor: published one reading to \(charts.joined(separator: ", ")) (network seq \(network))")
            server.shutdown()
            exit(0)
        }
    }
} catch {
    FileHandle.standardError.write(Data("system-monitor: \(error)\n".utf8))
    exit(1)
}

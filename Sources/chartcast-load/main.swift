// chartcast-load: headless viewers and drivers against a ChartCast server, or against
// libwebsockets-test-server's mirror protocol (--mirror) as the raw fan-out baseline; and the
// send() floor (--send-floor), the kernel's own price of a fan-out on this machine.
#if canImport(Glibc)
import Glibc
#endif
import LoadTesting

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(LoadOptions.usage)
    print()
    print(SoakOptions.usage)
    print()
    print(SendFloorOptions.usage)
    exit(0)
}

// `--compare DIR [--json FILE]`: the side-by-side table of a bench run's reports.
if let i = arguments.firstIndex(of: "--compare") {
    guard i + 1 < arguments.count else { fputs("chartcast-load: --compare needs a directory\n", stderr); exit(2) }
    let json = arguments.firstIndex(of: "--json").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    do {
        let comparison = try BenchComparison.load(directory: arguments[i + 1])
        print(comparison.table, terminator: "")
        if let json { try comparison.writeJSON(to: json) }
        exit(comparison.allTargetsMet ? 0 : 1)
    } catch {
        fputs("chartcast-load: \(error)\n", stderr)
        exit(1)
    }
}

/// One mode's steps: its options parsed (a mistake exits 2 with its usage), then `run` with
/// SIGPIPE ignored — a peer closing mid-write must be an error return, not a fatal signal —
/// which prints its report and writes any JSON; exits 0 when it succeeded, 1 when it did not or
/// threw.
func runMode<Options>(usage: String, parse: ([String]) throws -> Options, run: (Options) throws -> Bool) -> Never {
    let options: Options
    do {
        options = try parse(arguments)
    } catch {
        fputs("chartcast-load: \(error)\n\n\(usage)\n", stderr)
        exit(2)
    }
    signal(SIGPIPE, SIG_IGN)
    do {
        exit(try run(options) ? 0 : 1)
    } catch {
        fputs("chartcast-load: \(error)\n", stderr)
        exit(1)
    }
}

// `--send-floor …`: the kernel's price of a fan-out, with no server at all.
if arguments.contains("--send-floor") {
    runMode(usage: SendFloorOptions.usage, parse: SendFloorOptions.parse) { floor in
        let report = try SendFloor.run(floor)
        print(report.text, terminator: "")
        if let path = floor.jsonPath { try report.writeJSON(to: path) }
        return report.succeeded
    }
}

// `--soak SECONDS …`: a long run with stalling, vanishing and freezing connections.
if arguments.contains("--soak") {
    runMode(usage: SoakOptions.usage, parse: SoakOptions.parse) { soak in
        let report = try SoakRunner(options: soak).run()
        print(report.text, terminator: "")
        return report.succeeded
    }
}

// The load run: headless viewers and drivers against a server.
runMode(usage: LoadOptions.usage, parse: LoadOptions.parse) { options in
    let report = try LoadRunner(options: options).run()
    print(report.table, terminator: "")
    if let path = options.jsonPath { try report.writeJSON(to: path) }
    return report.succeeded
}

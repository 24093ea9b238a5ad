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

// `--send-floor …`: the kernel's price of a fan-out, with no server at all.
if arguments.contains("--send-floor") {
    let floor: SendFloorOptions
    do {
        floor = try SendFloorOptions.parse(arguments)
    } catch {
        fputs("chartcast-load: \(error)\n\n\(SendFloorOptions.usage)\n", stderr)
        exit(2)
    }
    signal(SIGPIPE, SIG_IGN)
    do {
        let report = try SendFloor.run(floor)
        print(report.text, terminator: "")
        if let path = floor.jsonPath { try report.writeJSON(to: path) }
        exit(report.succeeded ? 0 : 1)
    } catch {
        fputs("chartcast-load: \(error)\n", stderr)
        exit(1)
    }
}

// `--soak SECONDS …`: a long run with stalling, vanishing and freezing connections.
if arguments.contains("--soak") {
    let soak: SoakOptions
    do {
        soak = try SoakOptions.parse(arguments)
    } catch {
        fputs("chartcast-load: \(error)\n\n\(SoakOptions.usage)\n", stderr)
        exit(2)
    }
    signal(SIGPIPE, SIG_IGN)
    do {
        let report = try SoakRunner(options: soak).run()
        print(report.text, terminator: "")
        exit(report.succeeded ? 0 : 1)
    } catch {
        fputs("chartcast-load: \(error)\n", stderr)
        exit(1)
    }
}

let options: LoadOptions
do {
    options = try LoadOptions.parse(arguments)
} catch {
    fputs("chartcast-load: \(error)\n\n\(LoadOptions.usage)\n", stderr)
    exit(2)
}

// A peer closing mid-write must be an error return, not a fatal signal.
signal(SIGPIPE, SIG_IGN)

let report: LoadReport
do {
    report = try LoadRunner(options: options).run()
} catch {
    fputs("chartcast-load: \(error)\n", stderr)
    exit(1)
}

print(report.table, terminator: "")
if let path = options.jsonPath {
    do {
        try report.writeJSON(to: path)
    } catch {
        fputs("chartcast-load: \(error)\n", stderr)
        exit(1)
    }
}
exit(report.succeeded ? 0 : 1)

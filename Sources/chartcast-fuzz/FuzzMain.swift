#if FUZZING
import CFuzzer
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `chartcast-fuzz <target> [arguments]`: the libFuzzer targets, or a replayer of their inputs.
///
/// Why one executable that builds in both modes: SwiftPM links every executable target with
/// `main` aliased to its `@main` entry point, so a target that only defined
/// `LLVMFuzzerTestOneInput` (and relied on libFuzzer's own `main`) would fail to link in a plain
/// `swift build`, and collide with libFuzzer's `main` in a fuzzing build. Instead this target
/// always has its `@main`:
/// - built with `-Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING` (scripts/fuzz.sh, into
///   `.build/fuzz`), `main` hands the arguments to libFuzzer's `LLVMFuzzerRunDriver`, which
///   fuzzes `LLVMFuzzerTestOneInput` (or replays the files named) with every libFuzzer flag;
/// - in a plain build it replays files and directories through the same checks
///   (`chartcast-fuzz spec Fuzz/corpus/spec`), so the corpora double as regression inputs
///   without the sanitizer toolchain.
///
/// The target is the first argument, or `CHARTCAST_FUZZ_TARGET` (which is also set for the
/// processes libFuzzer re-executes, e.g. with `-minimize_crash=1`).
@main
enum FuzzMain {
    static func main() {
        var arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == "--list" || arguments[1] == "-h" || arguments[1] == "--help" {
            print(usage)
            return
        }
        let name: String
        if arguments.count > 1, FuzzTarget.named(arguments[1]) != nil {
            name = arguments.remove(at: 1)
        } else if let fromEnvironment = getenv(FuzzTarget.environmentKey).map({ String(cString: $0) }) {
            name = fromEnvironment
        } else {
            fail("name a target first\n\(usage)")
        }
        guard let target = FuzzTarget.named(name) else { fail("unknown target \"\(name)\"\n\(usage)") }
        setenv(FuzzTarget.environmentKey, name, 1)
        FuzzTarget.selected = target
        #if FUZZING
        exit(runLibFuzzer(arguments))
        #else
        exit(Replay.run(target, paths: Array(arguments.dropFirst())))
        #endif
    }

    static var usage: String {
        "usage: chartcast-fuzz <target> [libFuzzer flags | files and directories to replay]\ntargets:\n"
            + FuzzTarget.all.map { "  \($0.name.padding(toLength: 15, withPad: " ", startingAt: 0)) \($0.summary)" }
            .joined(separator: "\n")
    }

    static func fail(_ message: String) -> Never {
        fputs("chartcast-fuzz: \(message)\n", stderr)
        exit(2)
    }

    #if FUZZING
    /// Runs libFuzzer's driver on `arguments` (the target name already removed).
    static func runLibFuzzer(_ arguments: [String]) -> Int32 {
        // libFuzzer keeps argv for the processes it re-executes, so the strings live until exit.
        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        return cArguments.withUnsafeMutableBufferPointer { buffer in
            var argc = Int32(arguments.count)
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
        }
    }
    #endif
}

/// libFuzzer's per-input entry point: runs the selected target's checks on one input.
/// Returns 0 (the input is never rejected from the corpus); a broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.selected?.check(bytes)
    return 0
}

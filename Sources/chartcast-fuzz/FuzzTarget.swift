import Foundation

/// One fuzz target: a parser run on an arbitrary input, with the invariants its result must keep.
///
/// A check returns normally for every input the parser accepts or refuses correctly; a crash, a
/// sanitizer report or a broken invariant (`expect`) ends the process, which libFuzzer records
/// as a finding.
struct FuzzTarget {
    /// The name given on the command line and used for the corpus directory (`Fuzz/corpus/<name>`).
    let name: String
    /// One line for `--list`.
    let summary: String
    /// Runs one input.
    let check: ([UInt8]) -> Void

    /// Names the target when the first argument does not.
    static let environmentKey = "CHARTCAST_FUZZ_TARGET"

    /// The target of this process, chosen once by `FuzzMain` before any input runs.
    nonisolated(unsafe) static var selected: FuzzTarget?

    /// Every target, in the order `make fuzz` runs them.
    static let all: [FuzzTarget] = [.jsonReader, .clientMessage, .spec, .ingestJSON, .ingestCSV, .lineProtocol, .gzip]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Ends the process with `message` when `condition` is false: a finding, reported by libFuzzer
/// with the input that caused it.
func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
            file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// The longest message an error about a hostile input may carry. Errors quote parts of the
/// input, always capped; an error that grew with its input would amplify it into logs and answers.
let maxErrorMessageBytes = 2_048

/// Replays files through a target without libFuzzer (plain builds).
enum Replay {
    /// Runs every file named, and every regular file in the directories named; returns the exit
    /// code (a broken invariant traps instead of returning).
    static func run(_ target: FuzzTarget, paths: [String]) -> Int32 {
        guard !paths.isEmpty else {
            fputs("chartcast-fuzz: name the files or directories to replay (this build has no libFuzzer)\n", stderr)
            return 2
        }
        var count = 0
        for path in paths {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    fputs("chartcast-fuzz: cannot read \(file)\n", stderr)
                    return 1
                }
                target.check(Array(data))
                count += 1
            }
        }
        print("\(target.name): \(count) inputs replayed, every invariant held")
        return 0
    }

    /// `path` itself when it is a file, else the regular files in it, sorted.
    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { "\(path)/\($0)" }.filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A directory under the system's temporary directory, made on first use by whoever writes
/// into it and removed by `remove()` (call it in `tearDown`): no test writes into the working
/// tree.
public final class TemporaryDirectory {
    public let path: String

    public init(_ label: String = "test") {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("chartcast-\(label)-\(UUID().uuidString)").path
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the directory and everything in it (writable again first, in case a test made
    /// it read-only).
    public func remove() {
        chmod(path, 0o755)
        try? FileManager.default.removeItem(atPath: path)
    }
}

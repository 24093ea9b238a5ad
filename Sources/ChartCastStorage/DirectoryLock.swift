#if canImport(Glibc)
import Glibc
#endif

/// An exclusive claim on a history directory, so that two servers never write one database.
///
/// A `lock` file in the directory, `flock`ed for as long as the store is open and holding the
/// owner's process id for the error message. The kernel drops the lock when the process dies
/// (also under `kill -9`), so a crash never leaves the directory claimed.
///
/// - Note: not thread-safe; the store takes it at open and releases it at close.
final class DirectoryLock {
    /// The lock file's name inside the directory.
    static let fileName = "lock"

    private var fd: Int32

    /// Claims `directory`.
    /// - Throws: `StorageError(.cannotOpen)` when another process (or another open store of
    ///   this one) holds it, naming its process id, or when the file cannot be created.
    init(directory: String) throws {
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + DirectoryLock.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError.system("Creating the lock file", path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let owner = DirectoryLock.readOwner(fd)
            close(fd)
            guard code == EWOULDBLOCK else { throw StorageError.system("Locking", path: path, errno: code) }
            let who = owner.map { "process \($0)" } ?? "another process"
            throw StorageError(kind: .cannotOpen, path: directory, message:
                "The history directory \(directory) is in use by \(who); give each server a --data directory of its own.")
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        self.fd = fd
    }

    deinit { release() }

    /// Gives the directory up. Idempotent.
    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    /// The process id written by the holder, if readable.
    private static func readOwner(_ fd: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        let digits = buffer[..<n].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}

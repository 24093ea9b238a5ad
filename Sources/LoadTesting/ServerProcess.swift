#if canImport(Glibc)
import Glibc
#endif

/// A local server process observed through /proc: its resident memory and CPU time.
///
/// Found either by pid or by the TCP port it listens on: the listening socket's inode is read
/// from /proc/net/tcp (and tcp6), then the process holding `socket:[inode]` among its
/// /proc/<pid>/fd links is the server.
public struct ServerProcess: Sendable, Equatable {
    /// One reading of the process.
    public struct Sample: Sendable, Equatable {
        /// Resident set size in bytes (VmRSS).
        public var rssBytes: Int
        /// User plus system CPU time consumed so far, in seconds.
        public var cpuSeconds: Double
        /// When the sample was taken (monotonic ns).
        public var at: UInt64
    }

    public let pid: Int32

    public init(pid: Int32) { self.pid = pid }

    /// The process listening on TCP `port`, if it is on this machine and visible to us.
    /// - Complexity: O(processes · open files), a one-off scan.
    public static func listening(onPort port: Int) -> ServerProcess? {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = readText(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let cols = line.split(separator: " ", omittingEmptySubsequences: true)
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                guard cols.count > 9, cols[3] == "0A" else { continue }
                guard let colon = cols[1].lastIndex(of: ":"),
                      let p = Int(cols[1][cols[1].index(after: colon)...], radix: 16), p == port else { continue }
                inodes.insert(String(cols[9]))
            }
        }
        guard !inodes.isEmpty, let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        let targets = Set(inodes.map { "socket:[\($0)]" })
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard let pid = Int32(name) else { continue }
            guard let fds = opendir("/proc/\(name)/fd") else { continue }
            defer { closedir(fds) }
            while let fd = readdir(fds) {
                let fdName = withUnsafeBytes(of: fd.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                guard fdName.first?.isNumber == true else { continue }
                var buffer = [CChar](repeating: 0, count: 256)
                let n = readlink("/proc/\(name)/fd/\(fdName)", &buffer, buffer.count - 1)
                guard n > 0 else { continue }
                let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if targets.contains(link) { return ServerProcess(pid: pid) }
            }
        }
        return nil
    }

    /// Reads the process's RSS and CPU time now; nil once it has exited.
    public func sample() -> Sample? {
        guard let status = Self.readText("/proc/\(pid)/status"),
              let stat = Self.readText("/proc/\(pid)/stat") else { return nil }
        var rss = 0
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            rss = (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0) * 1024
        }
        // Fields after the ")" closing the command name: state is field 3; utime, stime are 14, 15.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 12, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return Sample(rssBytes: rss, cpuSeconds: (utime + stime) / ticks, at: MonotonicClock.now())
    }

    /// How many sockets the process holds open now (listeners included); nil once it has exited.
    /// - Complexity: O(open files).
    public func openSockets() -> Int? {
        guard let fds = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(fds) }
        var count = 0
        var buffer = [CChar](repeating: 0, count: 64)
        while let fd = readdir(fds) {
            let name = withUnsafeBytes(of: fd.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            let n = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count - 1)
            if n > 7, buffer.prefix(7).map({ UInt8(bitPattern: $0) }).elementsEqual("socket:".utf8) { count += 1 }
        }
        return count
    }

    /// This process's own CPU seconds (user + system), to show the load tester is not the limit.
    public static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The whole content of a small text file (procfs files report size 0, so read to EOF).
    static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Raises this process's open-file limit so thousands of sockets fit.
public enum FileLimit {
    /// Raises the soft RLIMIT_NOFILE towards `wanted` (capped by the hard limit) and returns the
    /// soft limit now in force.
    @discardableResult
    public static func raise(to wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        let target = min(rlim_t(wanted), limit.rlim_max)
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }
}

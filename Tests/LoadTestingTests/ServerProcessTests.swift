import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import LoadTesting

final class ServerProcessTests: XCTestCase {
    func testSamplesThisProcess() throws {
        let me = ServerProcess(pid: getpid())
        let sample = try XCTUnwrap(me.sample())
        XCTAssertGreaterThan(sample.rssBytes, 1 << 20)
        XCTAssertGreaterThan(sample.cpuSeconds, 0)
    }

    func testFindsTheProcessListeningOnAPort() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(fd, 4), 0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let port = Int(UInt16(bigEndian: addr.sin_port))
        XCTAssertEqual(ServerProcess.listening(onPort: port)?.pid, getpid())
    }

    func testNobodyListeningIsNil() {
        // Port 1 is privileged and unused in the test environment.
        XCTAssertNil(ServerProcess.listening(onPort: 1))
    }

    func testFileLimitIsRaisedTowardsTheHardLimit() {
        let limit = FileLimit.raise(to: 4096)
        XCTAssertGreaterThanOrEqual(limit, 1024)
    }
}

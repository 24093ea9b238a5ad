import ChartCastIngest
import ChartCastServer
import Foundation
import TestSupport
import XCTest

/// Hostile WebSocket clients against the whole server, with an honest viewer receiving the live
/// feed throughout: a permessage-deflate bomb, invalid UTF-8, and a flood of pings.
final class HostileWebSocketTests: XCTestCase {
    /// This process's resident set, in bytes (the server runs in it).
    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Int(text.split(separator: " ")[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// `text` as one permessage-deflate message payload: raw DEFLATE (a gzip stream without its
    /// 10-byte header and 8-byte trailer), written in 1 MiB pieces of `repeating` after `prefix`.
    private func deflated(prefix: String, repeating byte: UInt8, count: Int) throws -> [UInt8] {
        let writer = try XCTUnwrap(GzipWriter(level: 9))
        writer.write(Array(prefix.utf8))
        let piece = [UInt8](repeating: byte, count: 1 << 20)
        for _ in 0..<(count >> 20) { writer.write(piece) }
        let gzip = writer.finish()
        return Array(gzip[10..<(gzip.count - 8)])
    }

    func testADeflateBombIsClosed1009WithoutGrowingMemory() throws {
        let server = try TestServer(tick: 0.05, deflate: true)
        let viewer = try server.viewer()
        _ = try viewer.append()
        let bomb = try deflated(prefix: "{\"type\":\"hello\",\"name\":\"", repeating: UInt8(ascii: "a"), count: 256 << 20)
        print("a \(bomb.count)-byte message inflating to 256 MiB")
        let before = residentBytes()
        let attacker = try RawWebSocket(port: server.port, subprotocol: ChartCastServer.subprotocol,
                                        extraHeaders: ["Sec-WebSocket-Extensions: permessage-deflate"])
        // FIN, RSV1 (compressed), text. libwebsockets 4.1's own inflater aborted the whole process
        // (an assert in its permessage-deflate extension) on this very message.
        attacker.send(first: 0xC1, payload: bomb)
        XCTAssertEqual(attacker.readCloseCode(), 1009, "inflated past the 65,536-byte message limit")
        let grown = residentBytes() - before
        print("resident set grew \(grown / 1024) KiB while inflating the bomb")
        XCTAssertLessThan(grown, 32 << 20, "the inflated message is never held")
        _ = try viewer.append()
        XCTAssertEqual(try rawHTTP(port: server.port, path: "/healthz").status, 200)
    }

    func testInvalidUTF8AndAPingFloodLeaveTheHonestViewerServed() throws {
        let server = try TestServer(tick: 0.05)
        let viewer = try server.viewer()
        _ = try viewer.append()
        let broken = try RawWebSocket(port: server.port, subprotocol: ChartCastServer.subprotocol)
        broken.send(first: 0x01, payload: Array("{\"type\":\"hello\",\"name\":\"\u{E9}".utf8.dropLast()))
        broken.send(first: 0x80, payload: [0x41, 0x22, 0x7D])  // the é's second byte replaced: invalid
        XCTAssertEqual(broken.readCloseCode(), 1007)
        _ = try viewer.append()
        let flooder = try RawWebSocket(port: server.port, subprotocol: ChartCastServer.subprotocol)
        var burst: [UInt8] = []
        for _ in 0..<1000 { burst += RawWebSocket.frame(first: 0x89, payload: [1, 2, 3, 4]) }
        for _ in 0..<10 {
            flooder.send(burst)
            _ = try viewer.append(timeout: 2)
        }
        _ = try viewer.append()
    }
}

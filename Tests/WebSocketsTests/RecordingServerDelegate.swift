import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// The subprotocol of the test servers.
let testSubprotocol = "test.v1"

/// A server delegate for tests: a small queueing decider. It keeps a per-connection outbox,
/// echoes, records events (readable from the test thread under a lock) and answers a few HTTP
/// paths.
final class RecordingServerDelegate: WebSocketServerDelegate {
    private let lock = NSLock()
    weak var server: WebSocketServer?

    /// Echo every message back to its sender.
    var echo = true
    /// Send this text frame before closing with 1009 when a message is too large.
    var tooLargeErrorText = "error: message too large"
    /// Queued for every new connection.
    var welcomeText: String?
    /// Report `morePending: false` whatever is queued (to see that the server believes it).
    var understatePending = false
    /// Frames handed out per connection. - Note: service thread only.
    private var outboxes: [WebSocketConnection: FIFOQueue<OutboundFrame>] = [:]
    /// Extra frames produced on demand for a connection id (flood tests). - Note: service thread only.
    var floodFrames: [Int: (frame: OutboundFrame, remaining: Int)] = [:]

    /// Called at the end of every service pass. - Note: service thread only.
    var onPassEnd: (() -> Void)?

    private var _opened: [WebSocketConnection] = []
    private var _received: [(Int, InboundMessage)] = []
    private var _exceeded: [Int] = []
    private var _closed: [Int] = []
    private var _handedOut: [ObjectIdentifier] = []
    private var _pulls: [Int: Int] = [:]
    private var _pullsBetweenPasses: [Bool] = []
    private var _offServiceThread = 0
    private var receivedThisPass = 0
    private var _receivedPerPass: [Int] = []

    var opened: [WebSocketConnection] { return locked { _opened } }
    var received: [(Int, InboundMessage)] { return locked { _received } }
    var exceeded: [Int] { return locked { _exceeded } }
    var closed: [Int] { return locked { _closed } }
    var handedOut: [ObjectIdentifier] { return locked { _handedOut } }
    var callsOffServiceThread: Int { return locked { _offServiceThread } }
    /// For every `nextFrameFor` that handed out a frame: whether it was asked between two
    /// service passes (`WebSocketConnection.writeNow`) rather than in a writable callback.
    var pullsBetweenPasses: [Bool] { return locked { _pullsBetweenPasses } }
    /// How often `nextFrameFor` was asked, per connection id.
    func pulls(_ id: Int) -> Int { return locked { _pulls[id] ?? 0 } }
    /// Messages received in each service pass that received any.
    var receivedPerPass: [Int] { return locked { _receivedPerPass } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func checkThread(_ server: WebSocketServer) {
        if !server.isServiceThread { locked { _offServiceThread += 1 } }
    }

    /// Queues `frame` for `connection` and asks for a write. - Note: service thread only.
    func enqueue(_ frame: OutboundFrame, to connection: WebSocketConnection) {
        stage(frame, for: connection)
        connection.requestWrite()
    }

    /// Queues `frame` for `connection` without asking for a write. - Note: service thread only.
    func stage(_ frame: OutboundFrame, for connection: WebSocketConnection) {
        outboxes[connection, default: FIFOQueue()].append(frame)
    }

    /// Sends one frame object to every open connection. - Note: any thread.
    func broadcast(_ frame: OutboundFrame) {
        server?.perform { [self] in
            for connection in self.server?.openConnections ?? [] {
                self.enqueue(frame, to: connection)
            }
        }
    }

    func webSocketServer(_ server: WebSocketServer, didOpen connection: WebSocketConnection) {
        checkThread(server)
        locked { _opened.append(connection) }
        if let welcome = welcomeText {
            enqueue(OutboundFrame(text: welcome), to: connection)
        }
    }

    func webSocketServer(_ server: WebSocketServer, connection: WebSocketConnection, didReceive message: InboundMessage) {
        checkThread(server)
        locked {
            _received.append((connection.id, message))
            receivedThisPass += 1
        }
        guard echo else { return }
        switch message {
        case .text(let bytes): enqueue(OutboundFrame(textBytes: bytes), to: connection)
        case .binary(let bytes): enqueue(OutboundFrame(binary: bytes), to: connection)
        }
    }

    func webSocketServer(_ server: WebSocketServer, connectionDidExceedMessageSize connection: WebSocketConnection) {
        checkThread(server)
        locked { _exceeded.append(connection.id) }
        enqueue(OutboundFrame(text: tooLargeErrorText), to: connection)
        connection.close(code: 1009, reason: "message too large")
    }

    func webSocketServer(_ server: WebSocketServer, didClose connection: WebSocketConnection) {
        checkThread(server)
        outboxes[connection] = nil
        locked { _closed.append(connection.id) }
    }

    func webSocketServer(_ server: WebSocketServer, nextFrameFor connection: WebSocketConnection) -> NextFrame {
        checkThread(server)
        locked { _pulls[connection.id, default: 0] += 1 }
        if let frame = outboxes[connection]?.popFirst() {
            locked {
                _handedOut.append(ObjectIdentifier(frame))
                _pullsBetweenPasses.append(server.loop.isAfterPass)
            }
            return NextFrame(frame, morePending: !understatePending && hasMore(for: connection))
        }
        if let flood = floodFrames[connection.id], flood.remaining > 0 {
            floodFrames[connection.id] = (flood.frame, flood.remaining - 1)
            return NextFrame(flood.frame, morePending: !understatePending && hasMore(for: connection))
        }
        return .nothing
    }

    private func hasMore(for connection: WebSocketConnection) -> Bool {
        return !(outboxes[connection]?.isEmpty ?? true) || (floodFrames[connection.id]?.remaining ?? 0) > 0
    }

    func webSocketServerDidFinishServicePass(_ server: WebSocketServer) {
        checkThread(server)
        locked {
            if receivedThisPass > 0 { _receivedPerPass.append(receivedThisPass) }
            receivedThisPass = 0
        }
        onPassEnd?()
    }

    private var _httpPaths: [String] = []
    private var _httpRequests: [HTTPRequest] = []
    private var _bodyChecks: [HTTPRequest] = []
    private var _upgradeChecks: [HTTPRequest] = []
    var httpPaths: [String] { return locked { _httpPaths } }
    /// Every request handed to `handle`, with its body.
    var httpRequests: [HTTPRequest] { return locked { _httpRequests } }
    /// Every request head asked about before its body.
    var bodyChecks: [HTTPRequest] { return locked { _bodyChecks } }
    /// Every handshake asked about before its upgrade.
    var upgradeChecks: [HTTPRequest] { return locked { _upgradeChecks } }

    /// Decides `shouldReadBodyOf` (nil: read every body). Set before requests arrive.
    var bodyRefusal: ((HTTPRequest) -> HTTPResponse?)?
    /// Decides `shouldAcceptUpgrade` (nil: accept). Set before handshakes arrive.
    var upgradeRefusal: ((HTTPRequest) -> HTTPResponse?)?
    /// Decides `responseToOversizedBodyOf` (nil: the server's plain 413).
    var oversizedResponse: ((HTTPRequest, Int) -> HTTPResponse?)?
    /// Called for `/api/later`, which answers `.later`: the test answers through the responder.
    var onLater: ((HTTPRequest, HTTPResponder) -> Void)?

    func webSocketServer(_ server: WebSocketServer, shouldReadBodyOf request: HTTPRequest) -> HTTPResponse? {
        checkThread(server)
        locked { _bodyChecks.append(request) }
        return bodyRefusal?(request)
    }

    func webSocketServer(_ server: WebSocketServer, responseToOversizedBodyOf request: HTTPRequest, limit: Int) -> HTTPResponse? {
        checkThread(server)
        return oversizedResponse?(request, limit)
    }

    func webSocketServer(_ server: WebSocketServer, shouldAcceptUpgrade request: HTTPRequest) -> HTTPResponse? {
        checkThread(server)
        locked { _upgradeChecks.append(request) }
        return upgradeRefusal?(request)
    }

    func webSocketServer(_ server: WebSocketServer, handle request: HTTPRequest, responder: HTTPResponder) -> HTTPAnswer {
        checkThread(server)
        locked { _httpRequests.append(request) }
        switch request.path {
        case "/api/later":
            onLater?(request, responder)
            return .later
        case "/api/upload":
            // The body back, with what the server saw of the request in headers.
            return .now(HTTPResponse(status: 200, contentType: "application/octet-stream", body: request.body, headers: [
                HTTPHeaderField(name: "X-Method", value: request.method),
                HTTPHeaderField(name: "X-Body-Length", value: String(request.body.count)),
            ]))
        case "/api/nocontent":
            return .now(.noContent)
        case "/api/only-put":
            guard request.method == "PUT" else {
                return .now(HTTPResponse(status: 405, contentType: "text/plain; charset=utf-8", body: Array("use PUT\n".utf8),
                                         headers: [HTTPHeaderField(name: "Allow", value: "PUT")]))
            }
            return .now(.text("put \(request.body.count)"))
        default:
            return webSocketServer(server, respondTo: request).map(HTTPAnswer.now) ?? .notHandled
        }
    }

    func webSocketServer(_ server: WebSocketServer, respondTo request: HTTPRequest) -> HTTPResponse? {
        checkThread(server)
        locked { _httpPaths.append(request.path + (request.query.map { "?" + $0 } ?? "")) }
        switch request.path {
        case "/healthz": return .text("ok")
        case "/api/echo": return .json(Array("{\"method\":\"\(request.method)\",\"query\":\"\(request.query ?? "")\"}".utf8))
        case "/api/big": return HTTPResponse(status: 200, contentType: "application/octet-stream",
                                             body: (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        case "/teapot": return .text("short and stout", status: 418)
        default: return nil
        }
    }
}

/// Starts a server speaking `testSubprotocol` on an ephemeral loopback port.
func startServer(_ configure: (inout WebSocketServerConfiguration) -> Void = { _ in },
                 delegate: RecordingServerDelegate = RecordingServerDelegate()) throws -> (WebSocketServer, RecordingServerDelegate, Int) {
    var configuration = WebSocketServerConfiguration(subprotocol: testSubprotocol)
    configuration.port = 0
    configure(&configuration)
    let server = WebSocketServer(configuration: configuration, delegate: delegate)
    delegate.server = server
    let port = try server.start()
    return (server, delegate, port)
}

/// Queues `frames` 64 KiB binary frames for one connection (whose peer has paused reading) and
/// waits until its socket is choked: the send buffers are full and even a close frame cannot go out.
func floodUntilChoked(_ server: WebSocketServer, _ delegate: RecordingServerDelegate, connection id: Int,
                      byte: UInt8, frames: Int) -> Bool {
    server.perform {
        delegate.floodFrames[id] = (OutboundFrame(binary: [UInt8](repeating: byte, count: 64 * 1024)), frames)
        server.openConnections.first { $0.id == id }?.requestWrite()
    }
    return eventually(timeout: 5) {
        server.performAndWait(timeout: 2) { server.openConnections.first { $0.id == id }?.isChoked ?? false } ?? false
    }
}

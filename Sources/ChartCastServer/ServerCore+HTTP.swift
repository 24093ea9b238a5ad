import ChartCastProtocol
import ChartEngine
import Foundation
import WebSockets

extension ServerCore {
    /// The dynamic HTTP endpoints; nil lets the static page (or a 404) answer.
    /// - Note: service thread only.
    func respond(to request: HTTPRequest) -> HTTPResponse? {
        assertOwningThread()
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        switch request.path {
        case "/healthz":
            return .text("ok")
        case "/api/charts":
            return .json(ChartSpec.encodeList(channels.map(\.spec)))
        case "/metrics":
            let body = metrics.render(viewers: viewerCount, charts: channels, rssBytes: ServerCore.residentBytes())
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(body.utf8))
        default:
            return nil
        }
    }

    /// This process's resident set size from `/proc/self/statm`, nil where unavailable.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// Adapts the WebSocket layer's callbacks to the core. Holds the core strongly; the server
/// holds this adapter for its lifetime.
final class CoreDelegate: WebSocketServerDelegate {
    let core: ServerCore
    init(core: ServerCore) { self.core = core }

    func webSocketServer(_ server: WebSocketServer, didOpen connection: WebSocketConnection) { core.open(connection) }
    func webSocketServer(_ server: WebSocketServer, connection: WebSocketConnection, didReceive message: InboundMessage) {
        core.receive(message, from: connection)
    }
    func webSocketServer(_ server: WebSocketServer, connectionDidExceedMessageSize connection: WebSocketConnection) {
        core.messageTooLarge(on: connection)
    }
    func webSocketServer(_ server: WebSocketServer, didClose connection: WebSocketConnection) { core.close(connection) }
    func webSocketServer(_ server: WebSocketServer, nextFrameFor connection: WebSocketConnection) -> NextFrame {
        core.nextFrame(for: connection)
    }
    func webSocketServer(_ server: WebSocketServer, respondTo request: HTTPRequest) -> HTTPResponse? {
        core.respond(to: request)
    }
    func webSocketServerDidFinishServicePass(_ server: WebSocketServer) { core.finishServicePass() }
}

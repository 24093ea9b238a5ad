import ChartCastProtocol
import ChartEngine
import Foundation
import WebSockets

extension ServerCore {
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
        var answer: APIResponse?
        let handled = core.handleAPI(APIRequest(method: request.method, path: request.path, query: request.query)) { answer = $0 }
        guard handled, let answer else { return nil }
        return HTTPResponse(status: answer.status, contentType: answer.contentType, body: answer.body)
    }
    func webSocketServerDidFinishServicePass(_ server: WebSocketServer) { core.finishServicePass() }
}

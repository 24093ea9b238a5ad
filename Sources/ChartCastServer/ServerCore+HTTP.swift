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

    /// The API's requests go to `handleAPI`: an answer given before it returns is sent at once,
    /// a later one (a write parsed on a worker) through the responder; its replies arrive on the
    /// service thread. Other paths are the page's static files.
    func webSocketServer(_ server: WebSocketServer, handle request: HTTPRequest, responder: HTTPResponder) -> HTTPAnswer {
        let state = ReplyState()
        let handled = core.handleAPI(CoreDelegate.apiRequest(request)) { answer in
            if state.returned {
                responder.respond(CoreDelegate.httpResponse(answer))
            } else {
                state.immediate = answer
            }
        }
        state.returned = true
        guard handled else { return .notHandled }
        return state.immediate.map { .now(CoreDelegate.httpResponse($0)) } ?? .later
    }

    /// An API request that can be refused from its head (method, write access, media type,
    /// declared size, unknown chart) is answered before its body is read.
    func webSocketServer(_ server: WebSocketServer, shouldReadBodyOf request: HTTPRequest) -> HTTPResponse? {
        core.refusalBeforeBody(CoreDelegate.apiRequest(request)).map(CoreDelegate.httpResponse)
    }

    /// A chunked body that grew past the limit gets the API's JSON error on API paths.
    func webSocketServer(_ server: WebSocketServer, responseToOversizedBodyOf request: HTTPRequest, limit: Int) -> HTTPResponse? {
        guard APIRoute.isAPIPath(request.path) else { return nil }
        return CoreDelegate.httpResponse(.error(413, "too_large", "the body is over \(limit) bytes"))
    }

    /// A handshake from a foreign origin (403) or without the viewer token (401) is refused
    /// before the upgrade, with the API's JSON error.
    func webSocketServer(_ server: WebSocketServer, shouldAcceptUpgrade request: HTTPRequest) -> HTTPResponse? {
        core.upgradeRefusal(request).map(CoreDelegate.httpResponse)
    }

    func webSocketServerDidFinishServicePass(_ server: WebSocketServer) { core.finishServicePass() }

    /// Whether `handleAPI` has returned, and the answer it gave before that.
    private final class ReplyState {
        var returned = false
        var immediate: APIResponse?
    }

    static func apiRequest(_ request: HTTPRequest) -> APIRequest {
        var headers: [String: String] = [:]
        for field in request.headers where headers[field.name.lowercased()] == nil {
            headers[field.name.lowercased()] = field.value
        }
        return APIRequest(method: request.method, path: request.path, query: request.query, headers: headers,
                          body: request.body, peerIP: request.peerIP)
    }

    static func httpResponse(_ answer: APIResponse) -> HTTPResponse {
        HTTPResponse(status: answer.status, contentType: answer.contentType, body: answer.body,
                     headers: answer.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) })
    }
}

import ChartCastProtocol
import ChartEngine
import Dispatch
import Foundation
import WebSockets
import XCTest
@testable import ChartCastServer

/// A `ServerCore` driven from the test's thread, without sockets: API requests answered through
/// `handleAPI` (work handed back from the ingest workers runs on the test thread, as it would on
/// the service thread), viewers as in-memory connections whose frames are pulled like a
/// writable socket would.
final class CoreHarness {
    final class Connection: ViewerConnection {
        let id: Int
        let remoteAddress: String
        let authorization: String?
        var userData: AnyObject?
        var writeRequests = 0
        var closedWith: UInt16?
        /// What the kernel is said to hold unsent for this viewer, and how often the core asked.
        var unsent = 0
        var unsentAsked = 0
        init(id: Int, remoteAddress: String, authorization: String?) {
            self.id = id
            self.remoteAddress = remoteAddress
            self.authorization = authorization
        }
        func requestWrite() { writeRequests += 1 }
        func close(code: UInt16, reason: String) { closedWith = code }
        var kernelUnsentBytes: Int { unsentAsked += 1; return unsent }
    }

    let core: ServerCore
    private let lock = NSLock()
    private var handedBack: [() -> Void] = []
    private var nextID = 0

    init(options: ServerOptions = ServerOptions(port: 0, logLevel: .error), dashboard: Dashboard? = nil) {
        core = ServerCore(options: options, logger: Logger(level: .error), dashboard: dashboard)
        core.runOnServiceThread = { [unowned self] work in
            self.lock.lock()
            self.handedBack.append(work)
            self.lock.unlock()
        }
    }

    /// An API request's answer, once given (`start`).
    final class Pending {
        var response: APIResponse?
    }

    /// Starts an API request without waiting for its answer (`settle` runs what it waits for):
    /// for requests that are in flight at the same time.
    func start(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = [],
               peer: String = "127.0.0.1") throws -> Pending {
        let pending = Pending()
        let request = APIRequest(method: method, path: path, query: nil, headers: headers, body: body, peerIP: peer)
        guard core.handleAPI(request, reply: { pending.response = $0 }) else { throw TestFailure("\(path) is not an API path") }
        return pending
    }

    /// Runs the work handed back to the service thread (history commits, parsed bodies) until
    /// `done`, or throws after the timeout.
    func settle(timeout: Double = 10, until done: () -> Bool) throws {
        runHandedBack(until: done, timeout: timeout)
        core.finishServicePass()
        guard done() else { throw TestFailure("not settled within \(timeout) s") }
    }

    /// Runs what workers handed back, until `done` or the timeout.
    private func runHandedBack(until done: () -> Bool, timeout: Double = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() && Date() < deadline {
            lock.lock()
            let batch = handedBack
            handedBack.removeAll()
            lock.unlock()
            if batch.isEmpty { Thread.sleep(forTimeInterval: 0.001) }
            for work in batch { work() }
            core.finishServicePass()   // as the service thread does after each pass: staged applies run
        }
    }

    /// How much work waits to be handed back to the service thread (a wake-up request counts).
    var handedBackCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return handedBack.count
    }

    /// Runs the work handed back to the service thread so far (ingest results, history answers).
    func runHandedBack() {
        lock.lock()
        let batch = handedBack
        handedBack.removeAll()
        lock.unlock()
        for work in batch { work() }
        core.finishServicePass()
    }

    /// Runs the work handed back so far but does not end the pass (staged applies wait).
    func runHandedBackWithoutEndingThePass() {
        lock.lock()
        let batch = handedBack
        handedBack.removeAll()
        lock.unlock()
        for work in batch { work() }
    }

    /// The API's answer to `request` (waiting for the worker when there is a body to parse).
    func api(_ method: String, _ path: String, query: String? = nil, headers: [String: String] = [:],
             body: [UInt8] = [], peer: String = "127.0.0.1") throws -> APIResponse {
        var answer: APIResponse?
        let request = APIRequest(method: method, path: path, query: query, headers: headers, body: body, peerIP: peer)
        guard core.handleAPI(request, reply: { answer = $0 }) else { throw TestFailure("\(path) is not an API path") }
        runHandedBack(until: { answer != nil })
        core.finishServicePass()
        guard let answer else { throw TestFailure("no answer to \(method) \(path)") }
        return answer
    }

    func api(_ method: String, _ path: String, json: String, headers: [String: String] = [:], peer: String = "127.0.0.1") throws -> APIResponse {
        try api(method, path, headers: ["content-type": "application/json"].merging(headers) { $1 }, body: Array(json.utf8), peer: peer)
    }

    /// A viewer that has read its welcome and snapshots.
    func viewer(peer: String = "127.0.0.1", authorization: String? = nil) throws -> Connection {
        nextID += 1
        let connection = Connection(id: nextID, remoteAddress: "\(peer):\(40_000 + nextID)", authorization: authorization)
        core.open(connection)
        _ = try drain(connection)
        return connection
    }

    func send(_ message: ClientMessage, from connection: Connection) {
        core.receive(.text(message.encode()), from: connection)
        core.finishServicePass()
    }

    /// Every frame the core has for `connection`, decoded, pulled as a writable socket would;
    /// each answer's `morePending` must say whether the next pull has a frame (the socket is
    /// re-armed on its word alone).
    func drain(_ connection: Connection, file: StaticString = #filePath, line: UInt = #line) throws -> [ServerMessage] {
        var messages: [ServerMessage] = []
        var promised: Bool?
        while true {
            let next = core.nextFrame(for: connection)
            if next.frame == nil, core.isHeld(connection) {
                // The pass wrote its share of chart data: the viewer is woken in a later pass.
                if promised == false { XCTFail("held although nothing was pending", file: file, line: line) }
                core.finishServicePass()
                continue
            }
            if let promised, promised != (next.frame != nil) {
                XCTFail("morePending was \(promised) but the next pull \(next.frame == nil ? "was empty" : "had a frame")",
                        file: file, line: line)
            }
            guard let frame = next.frame else { break }
            messages.append(try ServerMessage.decode(frame.bytes))
            promised = next.morePending
            if messages.count > 100_000 { throw TestFailure("fan-out never ran dry") }
        }
        return messages
    }
}

extension APIResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    func failure() throws -> APIBody.Failure { try APIBody.decodeFailure(body) }
    func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// Requests with bodies, every method, headers, deferred answers and keep-alive, over raw sockets.
final class WebSocketHTTPBodyTests: XCTestCase {
    private func start(_ configure: (inout WebSocketServerConfiguration) -> Void = { _ in })
        throws -> (WebSocketServer, RecordingServerDelegate, Int) {
        return try startServer { configuration in
            configuration.customRequestHeaders = ["Idempotency-Key", "x-trace-id"]
            configure(&configuration)
        }
    }

    func testEveryMethodReachesTheDelegate() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            let response = try rawHTTP(port: port, method: method, path: "/api/echo?m=1")
            XCTAssertEqual(response.status, 200, method)
            XCTAssertEqual(response.bodyText, "{\"method\":\"\(method)\",\"query\":\"m=1\"}")
            XCTAssertEqual(response.headers["cache-control"], "no-store", method)
        }
        let head = try rawHTTP(port: port, method: "HEAD", path: "/api/echo?m=1")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], String("{\"method\":\"HEAD\",\"query\":\"m=1\"}".utf8.count))
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(delegate.httpRequests.map(\.method), ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])
    }

    func testBodiesAndHeadersReachTheDelegate() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        let body = Array("{\"points\":[]}".utf8)
        let post = try rawHTTP(port: port, method: "POST", path: "/api/upload?chart=cpu", extraHeaders: [
            "Content-Type: application/json; charset=utf-8", "Authorization: Bearer s3cret", "Idempotency-Key: key-1",
            "X-Trace-Id:   abc 123  ", "X-Not-Configured: dropped", "Origin: http://example.test",
        ], body: body)
        XCTAssertEqual(post.status, 200)
        XCTAssertEqual(post.body, body, "the body came back whole")
        XCTAssertEqual(post.headers["x-method"], "POST")
        XCTAssertEqual(post.headers["x-body-length"], String(body.count))

        let request = try XCTUnwrap(delegate.httpRequests.last)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/api/upload")
        XCTAssertEqual(request.query, "chart=cpu")
        XCTAssertEqual(request.body, body)
        XCTAssertEqual(request.peerIP, "127.0.0.1")
        XCTAssertEqual(request.headers["content-type"], "application/json; charset=utf-8")
        XCTAssertEqual(request.headers["Content-Length"], String(body.count), "lookup ignores case")
        XCTAssertEqual(request.headers["AUTHORIZATION"], "Bearer s3cret")
        XCTAssertEqual(request.headers["host"], "127.0.0.1")
        XCTAssertEqual(request.headers["origin"], "http://example.test")
        XCTAssertEqual(request.headers["idempotency-key"], "key-1", "a configured custom header")
        XCTAssertEqual(request.headers["X-Trace-Id"], "abc 123", "trimmed")
        XCTAssertNil(request.headers["x-not-configured"], "libwebsockets cannot list unknown headers; only configured ones are kept")
        XCTAssertTrue(request.headers.fields.allSatisfy { $0.name == $0.name.lowercased() })

        let put = try rawHTTP(port: port, method: "PUT", path: "/api/upload", extraHeaders: ["Content-Type: text/csv"],
                              body: Array("x,y\n1,2\n".utf8))
        XCTAssertEqual(put.status, 200)
        XCTAssertEqual(put.bodyText, "x,y\n1,2\n")
        XCTAssertEqual(put.headers["x-method"], "PUT")

        let delete = try rawHTTP(port: port, method: "DELETE", path: "/api/upload", body: Array("gone".utf8))
        XCTAssertEqual(delete.status, 200)
        XCTAssertEqual(delete.bodyText, "gone", "a DELETE body with a Content-Length is read too")
        XCTAssertEqual(delete.headers["x-method"], "DELETE")

        let patch = try rawHTTP(port: port, method: "PATCH", path: "/api/upload", body: Array("p".utf8))
        XCTAssertEqual(patch.headers["x-method"], "PATCH")
        XCTAssertEqual(delegate.bodyChecks.map(\.method), ["POST", "PUT", "DELETE", "PATCH"], "asked before each body")
        XCTAssertTrue(delegate.bodyChecks.allSatisfy { $0.body.isEmpty }, "the head only")
        XCTAssertEqual(delegate.bodyChecks.first?.headers["idempotency-key"], "key-1")
    }

    func testMegabytesOfBodyArriveWhole() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        var body = [UInt8](repeating: 0, count: 3 << 20)
        var state: UInt32 = 2_463_534_242
        for i in body.indices {   // xorshift: no pattern lws could hide a bug behind
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            body[i] = UInt8(truncatingIfNeeded: state)
        }
        let response = try rawHTTP(port: port, method: "POST", path: "/api/upload",
                                   extraHeaders: ["Content-Type: application/octet-stream"], body: body, timeout: 10)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body.count, body.count)
        XCTAssertTrue(response.body == body)
        XCTAssertEqual(delegate.httpRequests.last?.body.count, body.count)
    }

    func testChunkedBodyIsDecoded() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        let parts = [Array("x,user\n".utf8), Array(repeating: UInt8(ascii: "7"), count: 40_000), Array("\n1,2\n".utf8)]
        let connection = try RawHTTPConnection(port: port)
        let coded = chunkedBody(parts, trailers: ["X-Checksum: none"])
        connection.send(rawRequestBytes(method: "POST", path: "/api/upload",
                                        headers: ["Transfer-Encoding: chunked", "Content-Type: text/csv"]))
        // In pieces that split chunk-size lines and data.
        var offset = 0
        for size in [3, 5, 1, 100, 7000, 1] + Array(repeating: 9_000, count: 10) where offset < coded.count {
            let end = min(coded.count, offset + size)
            connection.send(Array(coded[offset..<end]))
            offset = end
            usleep(2_000)
        }
        if offset < coded.count { connection.send(Array(coded[offset...])) }
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.body == parts.flatMap { $0 })
        XCTAssertEqual(delegate.httpRequests.last?.headers["transfer-encoding"], "chunked")
        XCTAssertEqual(response.headers["connection"], "close", "libwebsockets cannot delimit a chunked body: the connection closes")
        XCTAssertTrue(connection.waitForClose())
    }

    func testMalformedFramingIsRefusedAndClosed() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        let cases: [(String, [String], [UInt8], Int)] = [
            ("POST", ["Content-Length: 12abc"], [], 400),
            ("POST", ["Content-Length: 3", "Transfer-Encoding: chunked"], Array("abc".utf8), 400),
            ("POST", ["Transfer-Encoding: gzip"], [], 501),
            ("DELETE", ["Transfer-Encoding: chunked"], chunkedBody([Array("x".utf8)]), 411),
            ("POST", ["Transfer-Encoding: chunked"], Array("zz\r\nhello\r\n0\r\n\r\n".utf8), 400),
        ]
        for (method, headers, body, status) in cases {
            let connection = try RawHTTPConnection(port: port)
            connection.send(method: method, path: "/api/upload", headers: headers, body: body)
            let response = try connection.readResponse()
            XCTAssertEqual(response.status, status, "\(method) \(headers)")
            XCTAssertEqual(response.headers["connection"], "close")
            XCTAssertTrue(connection.waitForClose(), "\(headers)")
        }
        XCTAssertTrue(delegate.httpRequests.isEmpty, "none reached the delegate")
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200)
    }

    func testAPostWithoutALengthHasAnEmptyBodyAndClosesAfter() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(method: "POST", path: "/api/upload")
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.body.isEmpty)
        XCTAssertEqual(delegate.httpRequests.last?.body, [])
        XCTAssertEqual(response.headers["connection"], "close")
        XCTAssertTrue(connection.waitForClose())
    }

    func testExpectContinueIsAnsweredWhenTheBodyIsWanted() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        delegate.bodyRefusal = { $0.path == "/api/upload" ? nil : .text("no\n", status: 403) }
        let connection = try RawHTTPConnection(port: port, timeout: 2)
        connection.send(rawRequestBytes(method: "PUT", path: "/api/upload", headers: ["Content-Length: 5", "Expect: 100-continue"]))
        XCTAssertEqual(try connection.readResponse().status, 100, "the client may send its body")
        connection.send(Array("hello".utf8))
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "hello")

        let refused = try RawHTTPConnection(port: port, timeout: 2)
        refused.send(rawRequestBytes(method: "PUT", path: "/api/other", headers: ["Content-Length: 5", "Expect: 100-continue"]))
        XCTAssertEqual(try refused.readResponse().status, 403, "a refusal instead of 100: the body is never sent")
        XCTAssertTrue(refused.waitForClose())
    }

    func testTheDelegateRefusesBeforeTheBody() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        delegate.bodyRefusal = { request in
            request.headers["authorization"] == nil ? .text("token required\n", status: 401) : nil
        }
        let connection = try RawHTTPConnection(port: port, timeout: 2)
        // The head promises 100,000 bytes; none are sent: the answer must not wait for them.
        connection.send(rawRequestBytes(method: "POST", path: "/api/upload", headers: ["Content-Length: 100000"]))
        let started = Date()
        let refusal = try connection.readResponse()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(refusal.status, 401)
        XCTAssertEqual(refusal.bodyText, "token required\n")
        XCTAssertEqual(refusal.headers["content-length"], "15")
        XCTAssertEqual(refusal.headers["connection"], "close")
        XCTAssertTrue(connection.waitForClose(), "the body is unread: the connection closes after the answer")
        XCTAssertEqual(delegate.bodyChecks.count, 1)
        XCTAssertTrue(delegate.httpRequests.isEmpty, "a refused request never reaches handle")

        let allowed = try rawHTTP(port: port, method: "POST", path: "/api/upload", extraHeaders: ["Authorization: Bearer t"],
                                  body: Array("ok".utf8))
        XCTAssertEqual(allowed.status, 200)
        XCTAssertEqual(allowed.bodyText, "ok")
    }

    func testAGigabyteContentLengthGetsA413AtOnceAndIsNeverBuffered() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        let before = residentBytes()
        let connection = try RawHTTPConnection(port: port, timeout: 3)
        connection.send(rawRequestBytes(method: "POST", path: "/api/upload",
                                        headers: ["Content-Type: application/octet-stream", "Content-Length: 1073741824"]))
        // A client that streams its body regardless: 16 MiB of it.
        let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
        let started = Date()
        for _ in 0..<16 {
            if !connection.send(chunk) { break }   // the server stopped reading
        }
        let response = try connection.readResponse()
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "answered without waiting for the body")
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.headers["connection"], "close")
        XCTAssertTrue(connection.waitForClose(timeout: 12))
        let grown = residentBytes() - before
        XCTAssertLessThan(grown, 8 << 20, "the server buffered none of the body (grew \(grown) bytes)")
        XCTAssertTrue(delegate.httpRequests.isEmpty)
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200)
    }

    func testAChunkedBodyCrossingTheLimitGetsA413AsItCrosses() throws {
        let (server, delegate, port) = try start { $0.maxRequestBodyBytes = 64 * 1024 }
        defer { server.shutdown() }
        let connection = try RawHTTPConnection(port: port, timeout: 3)
        connection.send(rawRequestBytes(method: "POST", path: "/api/upload", headers: ["Transfer-Encoding: chunked"]))
        let piece = chunkedBody([[UInt8](repeating: 0x42, count: 16 * 1024)]).dropLast(5)   // one chunk, no last chunk
        for _ in 0..<4 { connection.send(Array(piece)) }   // exactly the limit: accepted so far
        usleep(100_000)
        connection.send(Array(piece))   // crosses it
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.headers["connection"], "close")
        XCTAssertTrue(connection.waitForClose())
        XCTAssertTrue(delegate.httpRequests.isEmpty)

        // At the limit exactly, a chunked body is accepted.
        let exact = try rawHTTP(port: port, method: "POST", path: "/api/upload", extraHeaders: ["Transfer-Encoding: chunked"],
                                body: chunkedBody(Array(repeating: [UInt8](repeating: 0x43, count: 16 * 1024), count: 4)))
        XCTAssertEqual(exact.status, 200)
        XCTAssertEqual(exact.body.count, 64 * 1024)
        // A Content-Length one byte over the limit is refused at once.
        XCTAssertEqual(try rawHTTP(port: port, method: "PUT", path: "/api/upload", extraHeaders: ["Content-Length: 65537"]).status, 413)
    }

    func testTheDelegateMayWordThe413() throws {
        let (server, delegate, port) = try start { $0.maxRequestBodyBytes = 1024 }
        defer { server.shutdown() }
        delegate.oversizedResponse = { request, limit in
            .json(Array("{\"error\":\"\(request.path) takes \(limit) bytes\"}".utf8), status: 413)
        }
        let declared = try rawHTTP(port: port, method: "POST", path: "/api/upload", extraHeaders: ["Content-Length: 2048"])
        XCTAssertEqual(declared.status, 413)
        XCTAssertEqual(declared.bodyText, "{\"error\":\"/api/upload takes 1024 bytes\"}")
        let chunked = try rawHTTP(port: port, method: "POST", path: "/api/upload", extraHeaders: ["Transfer-Encoding: chunked"],
                                  body: chunkedBody([[UInt8](repeating: 1, count: 1000), [UInt8](repeating: 2, count: 1000)]))
        XCTAssertEqual(chunked.status, 413)
        XCTAssertEqual(chunked.headers["content-type"], "application/json")
    }

    func testADeferredAnswerFromAWorkerThread() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        delegate.onLater = { request, responder in
            let body = request.body
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
                let answer = HTTPResponse.text("later: \(body.count) bytes", status: 202)
                server.perform { responder.respond(answer) }
            }
        }
        let connection = try RawHTTPConnection(port: port)
        connection.send(method: "POST", path: "/api/later", body: Array("hello".utf8))
        let first = try connection.readResponse()
        XCTAssertEqual(first.status, 202)
        XCTAssertEqual(first.bodyText, "later: 5 bytes")
        XCTAssertNil(first.headers["connection"])
        // Keep-alive after a deferred answer; HEAD of a deferred answer has no body.
        connection.send(method: "HEAD", path: "/api/later")
        let head = try connection.readResponse(bodyless: true)
        XCTAssertEqual(head.status, 202)
        XCTAssertEqual(head.headers["content-length"], "14")
        connection.send(method: "GET", path: "/healthz")
        XCTAssertEqual(try connection.readResponse().bodyText, "ok")
        XCTAssertEqual(connection.unreadBytes, 0, "no stray body bytes after the HEAD")
    }

    func testAnAnswerAfterTheClientLeftIsANoOp() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        let kept = ResponderBox()
        delegate.onLater = { _, responder in kept.set(responder) }
        do {
            let connection = try RawHTTPConnection(port: port)
            connection.send(method: "POST", path: "/api/later", body: Array("bye".utf8))
            XCTAssertTrue(eventually { kept.get() != nil })
            XCTAssertEqual(server.performAndWait(timeout: 2) { kept.get()?.isPending }, true)
        }   // the client closes here
        let responder = try XCTUnwrap(kept.get())
        XCTAssertTrue(eventually { server.performAndWait(timeout: 2) { responder.isPending } == false },
                      "the exchange went with its connection")
        XCTAssertEqual(server.performAndWait(timeout: 2) { () -> Bool in
            responder.respond(.text("too late"))
            responder.respond(.text("and again"))
            return true
        }, true)
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").bodyText, "ok")
    }

    func testOnlyTheFirstAnswerCounts() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        delegate.onLater = { _, responder in
            responder.respond(.text("first"))
            responder.respond(.text("second"))
        }
        let connection = try RawHTTPConnection(port: port)
        connection.send(method: "GET", path: "/api/later")
        XCTAssertEqual(try connection.readResponse().bodyText, "first")
        connection.send(method: "GET", path: "/healthz")
        XCTAssertEqual(try connection.readResponse().bodyText, "ok")
    }

    func testKeepAliveAfterPostsAndTwoHundredFour() throws {
        let (server, _, port) = try start()
        defer { server.shutdown() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(method: "POST", path: "/api/upload", body: Array("abc".utf8))
        XCTAssertEqual(try connection.readResponse().bodyText, "abc")
        connection.send(method: "PUT", path: "/api/upload", body: Array(repeating: 0x44, count: 100_000))
        XCTAssertEqual(try connection.readResponse().body.count, 100_000)
        connection.send(method: "DELETE", path: "/api/nocontent")
        let noContent = try connection.readResponse()
        XCTAssertEqual(noContent.status, 204)
        XCTAssertNil(noContent.headers["content-length"], "a 204 has no length")
        XCTAssertNil(noContent.headers["content-type"])
        XCTAssertEqual(noContent.headers["cache-control"], "no-store")
        connection.send(method: "POST", path: "/api/upload", headers: ["Content-Length: 0"])
        XCTAssertEqual(try connection.readResponse().headers["x-body-length"], "0")
        connection.send(method: "GET", path: "/healthz")
        XCTAssertEqual(try connection.readResponse().bodyText, "ok")
        XCTAssertEqual(connection.unreadBytes, 0)
    }

    func testTheDelegatesExtraHeadersAreSent() throws {
        let (server, _, port) = try start()
        defer { server.shutdown() }
        let refused = try rawHTTP(port: port, method: "POST", path: "/api/only-put", body: Array("x".utf8))
        XCTAssertEqual(refused.status, 405)
        XCTAssertEqual(refused.headers["allow"], "PUT")
        XCTAssertEqual(refused.bodyText, "use PUT\n")
        XCTAssertEqual(try rawHTTP(port: port, method: "PUT", path: "/api/only-put", body: Array("xy".utf8)).bodyText, "put 2")
    }

    func testHeadersThatCouldSplitTheResponseAreNotSent() throws {
        let (server, delegate, port) = try start()
        defer { server.shutdown() }
        delegate.onLater = { _, responder in
            responder.respond(HTTPResponse(status: 200, contentType: "text/plain", body: Array("ok".utf8), headers: [
                HTTPHeaderField(name: "X-Good", value: "yes"), HTTPHeaderField(name: "X-Bad", value: "a\r\nSet-Cookie: evil=1"),
                HTTPHeaderField(name: "Bad Name", value: "v"), HTTPHeaderField(name: "Content-Length", value: "999"),
            ]))
        }
        let response = try rawHTTP(port: port, path: "/api/later")
        XCTAssertEqual(response.headers["x-good"], "yes")
        XCTAssertNil(response.headers["x-bad"])
        XCTAssertNil(response.headers["set-cookie"])
        XCTAssertEqual(response.headers["content-length"], "2")
        XCTAssertEqual(response.bodyText, "ok")
    }

    /// This process's resident set size.
    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// A responder handed from the service thread to the test thread.
final class ResponderBox {
    private let lock = NSLock()
    private var responder: HTTPResponder?
    func set(_ value: HTTPResponder) { lock.lock(); responder = value; lock.unlock() }
    func get() -> HTTPResponder? { lock.lock(); defer { lock.unlock() }; return responder }
}

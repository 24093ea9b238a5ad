import Foundation
import XCTest
@testable import WebSockets

final class StaticFileResolverTests: XCTestCase {
    func testContentTypes() {
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "/a/index.html"), "text/html; charset=utf-8")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "app.js"), "text/javascript; charset=utf-8")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "app.mjs"), "text/javascript; charset=utf-8")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "x.css"), "text/css; charset=utf-8")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "x.PNG"), "image/png")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "x.svg"), "image/svg+xml")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "x.json"), "application/json")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "favicon.ico"), "image/x-icon")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "notes.txt"), "text/plain; charset=utf-8")
        XCTAssertEqual(StaticFileResolver.contentType(forPath: "blob"), "application/octet-stream")
    }

    func testPercentDecoding() {
        XCTAssertEqual(StaticFileResolver.percentDecode(Array("/a%20b".utf8)), Array("/a b".utf8))
        XCTAssertEqual(StaticFileResolver.percentDecode(Array("%2E%2e".utf8)), Array("..".utf8))
        XCTAssertNil(StaticFileResolver.percentDecode(Array("%2".utf8)))
        XCTAssertNil(StaticFileResolver.percentDecode(Array("%zz".utf8)))
    }

    func testResolution() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ws-resolver-\(UUID().uuidString)")
        let www = root.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try "i".write(to: www.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "s".write(to: www.appendingPathComponent("sub/index.html"), atomically: true, encoding: .utf8)
        try "x".write(to: root.appendingPathComponent("outside.txt"), atomically: true, encoding: .utf8)
        let resolver = try XCTUnwrap(StaticFileResolver(webRoot: www.path))
        guard case .file(let index, "text/html; charset=utf-8") = resolver.resolve("/") else {
            return XCTFail("/ should map to index.html")
        }
        XCTAssertTrue(index.hasSuffix("/www/index.html"))
        guard case .file(let sub, _) = resolver.resolve("/sub") else { return XCTFail("directory → its index.html") }
        XCTAssertTrue(sub.hasSuffix("/www/sub/index.html"))
        XCTAssertEqual(resolver.resolve("/nope.html"), .notFound)
        for path in ["/../outside.txt", "/%2e%2e/outside.txt", "/..%2foutside.txt", "/sub/..%5c..%5coutside.txt",
                     "/a%00b", "/.hidden", "/sub/%2E%2E/%2E%2E/outside.txt", "/%"] {
            XCTAssertEqual(resolver.resolve(path), .forbidden, path)
        }
        XCTAssertNil(StaticFileResolver(webRoot: root.appendingPathComponent("missing").path))
    }
}

import XCTest
@testable import ChartCastIngest

/// The UTF-8 bytes of `text`.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// What a test expects of an `IngestError`: its code, line and index, and text the message contains.
struct ExpectedError {
    var code: IngestError.Code
    var line: Int?
    var index: Int? = nil
    var contains: String = ""
}

/// Asserts that `body` throws an `IngestError` matching `expected`.
func assertIngestError<T>(_ expected: ExpectedError, _ label: String = "", file: StaticString = #filePath, line: UInt = #line,
                          _ body: () throws -> T) {
    do {
        _ = try body()
        XCTFail("\(label): no error (expected \(expected.code.rawValue))", file: file, line: line)
    } catch let error as IngestError {
        XCTAssertEqual(error.code, expected.code, "\(label): \(error)", file: file, line: line)
        XCTAssertEqual(error.line, expected.line, "\(label): \(error)", file: file, line: line)
        XCTAssertEqual(error.index, expected.index, "\(label): \(error)", file: file, line: line)
        if !expected.contains.isEmpty {
            XCTAssertTrue(error.message.contains(expected.contains), "\(label): \"\(error.message)\" lacks \"\(expected.contains)\"",
                          file: file, line: line)
        }
        if let errorLine = error.line {
            XCTAssertTrue(error.message.hasPrefix("line \(errorLine): "), "\(label): \(error.message)", file: file, line: line)
        }
    } catch {
        XCTFail("\(label): not an IngestError: \(error)", file: file, line: line)
    }
}

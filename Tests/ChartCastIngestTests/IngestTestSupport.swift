import XCTest
import ChartEngine
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

/// A time chart with series `user` and `system`.
func timeSpec(series: [String] = ["user", "system"], window: Int? = nil) -> ChartSpec {
    ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, series: series, window: window)
}

/// A linear chart with series `y`.
func linearSpec(series: [String] = ["y"]) -> ChartSpec {
    ChartSpec(id: "curve", title: "Curve", mark: .line, xKind: .linear, series: series)
}

/// A category chart over Mon…Sun with series `minutes`.
func categorySpec(series: [String] = ["minutes"]) -> ChartSpec {
    ChartSpec(id: "workouts", title: "Walking", mark: .bar, xKind: .category, series: series,
              categories: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
}

/// The batch's points as (series name, x, y) triples, for compact assertions.
func triples(_ batch: PointBatch) -> [(String, RawX, Double)] {
    (0..<batch.count).map { k in
        let p = batch[k]
        return (batch.series[p.series], p.x, p.y)
    }
}

/// The validated batch as rows of (x, [(series name, y)]).
func rows(_ v: ValidatedBatch) -> [(Double, [String: Double])] {
    (0..<v.rowCount).map { r in
        var values: [String: Double] = [:]
        for (s, y) in v.cells(row: r) { values[v.series[s]] = y }
        return (v.x(row: r), values)
    }
}

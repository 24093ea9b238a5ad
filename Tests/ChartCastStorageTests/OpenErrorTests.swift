import Foundation
import XCTest
import TestSupport
import ChartEngine
@testable import ChartCastStorage

final class OpenErrorTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("open") }
    override func tearDown() { directory.remove() }

    /// The error `open` throws, or a test failure.
    func openError(_ path: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> StorageError? {
        do {
            let store = try HistoryStore.open(directory: path ?? directory.path)
            store.close()
            XCTFail("open succeeded", file: file, line: line)
            return nil
        } catch let error as StorageError {
            return error
        } catch {
            XCTFail("not a StorageError: \(error)", file: file, line: line)
            return nil
        }
    }

    func testOpenCreatesMissingDirectories() throws {
        let nested = directory.file("a/b/c")
        let store = try HistoryStore.open(directory: nested)
        defer { store.close() }
        XCTAssertTrue(FileManager.default.fileExists(atPath: nested + "/" + HistoryStore.fileName))
    }

    func testAFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let junk = Array(String(repeating: "these are not the pages you are looking for\n", count: 200).utf8)
        _ = FileManager.default.createFile(atPath: directory.database, contents: Data(junk))
        let error = openError()
        XCTAssertEqual(error?.kind, .corrupt)
        XCTAssertTrue(error?.message.contains(directory.database) ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("not a SQLite database") ?? false, error?.message ?? "")
        XCTAssertEqual(FileManager.default.contents(atPath: directory.database).map(Array.init), junk, "never replaced")
    }

    func testACorruptDatabaseIsRefused() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(chunkCapacity: 16))
        store.appendAndWait(timeSpec(), (0..<5_000).map { HistoryPoint(series: "user", x: Double($0), y: 1) })
        store.close()
        // Overwrite pages 2–6 (the tables' roots and first leaves) with garbage.
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: directory.database))
        try handle.seek(toOffset: 4_096)
        handle.write(Data(repeating: 0xA5, count: 5 * 4_096))
        try handle.close()
        let error = openError()
        XCTAssertEqual(error?.kind, .corrupt)
        XCTAssertTrue(error?.message.contains(directory.database) ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("corrupt") ?? false, error?.message ?? "")
    }

    func testASchemaFromANewerVersionIsRefused() throws {
        try HistoryStore.open(directory: directory.path).close()
        let db = try SQLiteConnection(path: directory.database, create: false)
        try db.execute("UPDATE schema_version SET version = 99")
        db.close()
        let error = openError()
        XCTAssertEqual(error?.kind, .newerSchema)
        XCTAssertTrue(error?.message.contains("schema version 99") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains(directory.database) ?? false, error?.message ?? "")
    }

    func testAnotherProgramsDatabaseIsRefused() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let db = try SQLiteConnection(path: directory.database, create: true)
        try db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
        db.close()
        let error = openError()
        XCTAssertEqual(error?.kind, .cannotOpen)
        XCTAssertTrue(error?.message.contains("something else") ?? false, error?.message ?? "")
    }

    func testADirectoryThatCannotBeCreatedIsNamed() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory.file("plain"), contents: Data("x".utf8))
        let error = openError(directory.file("plain/data"))
        XCTAssertEqual(error?.kind, .cannotOpen)
        XCTAssertTrue(error?.message.contains(directory.file("plain")) ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("not a directory") ?? false, error?.message ?? "")
    }

    func testAReadOnlyDirectoryIsNamed() throws {
        guard getuid() != 0 else {
            throw XCTSkip("running as root: permission bits do not stop root, so chmod cannot make a directory read-only; "
                + "FailureRecoveryTests covers writes failing while running (size limit, query_only)")
        }
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(directory.path, 0o555), 0)
        let error = openError()
        XCTAssertEqual(error?.kind, .cannotOpen)
        XCTAssertTrue(error?.message.contains(directory.path) ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.lowercased().contains("permission denied") ?? false, error?.message ?? "")
        let below = openError(directory.file("data"))
        XCTAssertEqual(below?.kind, .cannotOpen)
        XCTAssertTrue(below?.message.lowercased().contains("permission denied") ?? false, below?.message ?? "")
    }

    func testErrorsReadAsOneSentence() {
        let error = StorageError(SQLiteFailure(code: 13, message: "database or disk is full"), while: .writing, path: "/data/history.sqlite")
        XCTAssertEqual(error.kind, .unavailable)
        XCTAssertTrue(error.isUnavailable)
        XCTAssertEqual(error.description,
                       "Writing to the history database /data/history.sqlite failed: the disk is full or the database reached its size limit; SQLite says: database or disk is full.")
    }
}

import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation

/// Why an embedded program's call could not be carried out.
public enum EmbeddingError: Error, Equatable, CustomStringConvertible {
    /// The server is not running (before `start()`, after `shutdown()`) or did not answer.
    case notRunning
    /// No chart with this id.
    case unknownChart(String)
    /// The spec breaks a rule of the schema: the message names the field, as for JSON.
    case badSpec(String)
    /// A point is invalid (or the write is too large); nothing was applied.
    case badPoints(String)
    /// The history store cannot take the points now (full or read-only disk); nothing was
    /// applied, the same call may succeed later.
    case unavailable(String)

    public var description: String {
        switch self {
        case .notRunning: return "the server is not running"
        case .unknownChart(let id): return "no chart with id \"\(id)\""
        case .badSpec(let message), .badPoints(let message), .unavailable(let message): return message
        }
    }
}

/// One point published by an embedding program.
public struct Point: Equatable, Sendable {
    public var series: String
    /// A number (time charts: epoch milliseconds; linear: the value) or a category name.
    public var x: XValue
    public var y: Double

    public init(series: String, x: XValue, y: Double) {
        self.series = series
        self.x = x
        self.y = y
    }
}

/// What a Swift program that embeds ChartCast calls, from any thread: define and remove charts
/// while viewers watch, and publish points. Each call is carried out on the service thread
/// and waits for it (at most `timeout` seconds); the rules are the HTTP API's (one schema, one
/// validation, all or nothing).
extension ChartCastServer {
    /// Defines (or replaces) a chart. The spec is checked by the schema like a `PUT` body.
    /// - Returns: true when the chart is new, false when it replaced one.
    /// - Throws: `EmbeddingError.badSpec` (naming the field), `.notRunning`, or `.unavailable`
    ///   when the dashboard's Redis (`--redis`) cannot take the change.
    @discardableResult
    public func define(_ spec: ChartSpec, timeout: Double = 5) throws -> Bool {
        let checked: ChartSpec
        do {
            checked = try ChartSpec.parse(spec.encoded())
        } catch let error as ProtocolError {
            throw EmbeddingError.badSpec(error.message)
        }
        let core = self.core
        if options.redis != nil {
            // Shared with the other instances: through the dashboard's stream.
            guard let result = serviceCall(timeout: timeout, { done in core.clusterDefine(checked, done: done) }) else {
                throw EmbeddingError.notRunning
            }
            switch result {
            case .success(let definition): return definition == .created
            case .failure(let error): throw EmbeddingError.unavailable(error.message)
            }
        }
        guard let definition = serviceCall(timeout: timeout, { done in core.defineInTurn(checked, done: done) }) else {
            throw EmbeddingError.notRunning
        }
        return definition == .created
    }

    /// Removes a chart. Returns false when there was none with this id.
    /// - Throws: `EmbeddingError.notRunning`, or `.unavailable` when the dashboard's Redis
    ///   (`--redis`) cannot take the change.
    @discardableResult
    public func removeChart(_ id: String, timeout: Double = 5) throws -> Bool {
        let core = self.core
        if options.redis != nil {
            guard let result = serviceCall(timeout: timeout, { done in core.clusterRemove(id, done: done) }) else {
                throw EmbeddingError.notRunning
            }
            switch result {
            case .success(let removed): return removed
            case .failure(let error): throw EmbeddingError.unavailable(error.message)
            }
        }
        guard let removed = serviceCall(timeout: timeout, { done in core.removeInTurn(id, done: done) }) else {
            throw EmbeddingError.notRunning
        }
        return removed
    }

    /// Publishes points to a chart, all or nothing, and returns the chart's `seq` after them.
    /// The points are checked against the chart like an HTTP write (x of the chart's kind,
    /// categories it lists, at most 32 series); viewers receive them as one `append`.
    /// - Throws: `EmbeddingError.badPoints` (nothing applied), `.unknownChart`, `.notRunning`.
    @discardableResult
    public func publish(_ points: [Point], to chart: String, timeout: Double = 5) throws -> Int {
        let batch: PointBatch
        do {
            batch = try PointBatch(published: points.map { point in
                switch point.x {
                case .number(let x): return PublishedRow(series: point.series, x: .number(x), y: point.y)
                case .category(let name): return PublishedRow(series: point.series, x: .string(name), y: point.y)
                }
            })
        } catch let error as IngestError {
            throw EmbeddingError.badPoints(error.message)
        }
        let core = self.core
        guard let outcome = serviceCall(timeout: timeout, { done in core.write(batch, to: chart, done: done) }) else {
            throw EmbeddingError.notRunning
        }
        switch outcome {
        case .applied(let seq, _): return seq
        case .unknownChart(let id): throw EmbeddingError.unknownChart(id)
        case .rejected(let error): throw EmbeddingError.badPoints(error.message)
        case .unavailable(let error): throw EmbeddingError.unavailable(error.message)
        }
    }

    /// The charts being served, in dashboard order.
    public func charts(timeout: Double = 5) -> [ChartSpec]? {
        let core = self.core
        return serviceCall(timeout: timeout) { core.liveChannels.map(\.spec) }
    }

    /// Runs `work` on the service thread (the viewers it concerns are woken at the end of that
    /// service pass) and waits for its result.
    private func serviceCall<T>(timeout: Double, _ work: @escaping () -> T) -> T? {
        server.performAndWait(timeout: timeout, work)
    }

    /// Starts `work` on the service thread and waits (at most `timeout` seconds) for it to hand
    /// its result to the callback it is given, which may happen in a later service pass (after
    /// a history commit). Nil when the server is not running or did not answer in time.
    private func serviceCall<T>(timeout: Double, _ work: @escaping (@escaping (T) -> Void) -> Void) -> T? {
        let answer = PendingAnswer<T>()
        guard server.performAndWait(timeout: timeout, { work { answer.fulfil($0) } }) != nil else { return nil }
        return answer.wait(timeout: timeout)
    }
}

/// A result handed over from the service thread to a caller waiting for it.
private final class PendingAnswer<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: T?

    /// Stores the result and wakes the waiter (the first call wins).
    func fulfil(_ result: T) {
        condition.lock()
        if value == nil { value = result }
        condition.broadcast()
        condition.unlock()
    }

    /// The result, or nil after `timeout` seconds without one.
    func wait(timeout: Double) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            if !condition.wait(until: deadline) { break }
        }
        return value
    }
}

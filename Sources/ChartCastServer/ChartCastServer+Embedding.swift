import ChartCastIngest
import ChartCastProtocol
import ChartEngine

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

    public var description: String {
        switch self {
        case .notRunning: return "the server is not running"
        case .unknownChart(let id): return "no chart with id \"\(id)\""
        case .badSpec(let message), .badPoints(let message): return message
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
    /// - Throws: `EmbeddingError.badSpec` (naming the field) or `.notRunning`.
    @discardableResult
    public func define(_ spec: ChartSpec, timeout: Double = 5) throws -> Bool {
        let checked: ChartSpec
        do {
            checked = try ChartSpec.parse(spec.encoded())
        } catch let error as ProtocolError {
            throw EmbeddingError.badSpec(error.message)
        }
        let core = self.core
        guard let definition = serviceCall(timeout: timeout, { core.define(checked) }) else { throw EmbeddingError.notRunning }
        return definition == .created
    }

    /// Removes a chart. Returns false when there was none with this id.
    /// - Throws: `EmbeddingError.notRunning`.
    @discardableResult
    public func removeChart(_ id: String, timeout: Double = 5) throws -> Bool {
        let core = self.core
        guard let removed = serviceCall(timeout: timeout, { core.remove(chart: id) }) else { throw EmbeddingError.notRunning }
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
        let outcome: Result<Int, EmbeddingError>? = serviceCall(timeout: timeout) {
            guard let channel = core.channelsByID[chart] else { return .failure(.unknownChart(chart)) }
            do {
                return .success(try core.apply(batch.validate(against: channel.spec), to: channel))
            } catch let error as IngestError {
                return .failure(.badPoints(error.message))
            } catch {
                return .failure(.badPoints("\(error)"))
            }
        }
        guard let outcome else { throw EmbeddingError.notRunning }
        return try outcome.get()
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
}

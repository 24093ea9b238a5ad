import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine
import Dispatch
import Foundation

extension ServerCore {
    /// Request bodies larger than this are refused with 413 before they are read.
    static let maxBodyBytes = 16 << 20

    /// Answers a request of the HTTP API (`docs/api.md`), now or later: `reply` is called once,
    /// on the service thread. Returns false when `request` is not for the API (the page's static
    /// files answer it). Bodies are parsed on a worker thread; what they change is applied on the
    /// service thread, all or nothing.
    /// - Note: service thread only.
    func handleAPI(_ request: APIRequest, reply: @escaping (APIResponse) -> Void) -> Bool {
        assertOwningThread()
        if let refusal = readRefusal(request) {
            reply(refusal)
            return true
        }
        guard let route = APIRoute.match(request.path) else {
            guard APIRoute.isAPIPath(request.path) else { return false }
            reply(.unknownEndpoint(request.path))
            return true
        }
        if let refusal = refusalBeforeBody(request, route: route) {
            reply(refusal)
            return true
        }
        guard APIRoute.isWrite(request.method) else {
            read(route, request, reply: reply)
            return true
        }
        withIdempotency(request, reply: reply) { finish in
            self.write(route, request, reply: finish)
        }
        return true
    }

    /// What can be refused from the request line and headers alone, whatever the path: nil for
    /// paths the API does not own, 404 for unknown ones under `/api/`, else as below.
    /// - Note: service thread only.
    func refusalBeforeBody(_ request: APIRequest) -> APIResponse? {
        guard let route = APIRoute.match(request.path) else {
            return APIRoute.isAPIPath(request.path) ? .unknownEndpoint(request.path) : nil
        }
        return refusalBeforeBody(request, route: route)
    }

    /// What can be refused from the request line and headers alone, before a body is read:
    /// the method (405 with `Allow`), write access (401), the media type (415), the declared
    /// size (413) and, for points, an unknown chart (404).
    /// - Note: service thread only.
    func refusalBeforeBody(_ request: APIRequest, route: APIRoute) -> APIResponse? {
        guard route.allowedMethods.contains(request.method) else {
            return .methodNotAllowed(request.method, allowed: route.allowedMethods)
        }
        guard APIRoute.isWrite(request.method) else { return nil }
        guard writeAccess.permits(authorization: request.header("authorization"), peerIP: request.peerIP) else {
            return .error(401, "unauthorized", options.writeToken == nil
                ? "writes are accepted from loopback peers only (start chartcast with --write-token to allow others)"
                : "a write needs the write token: Authorization: Bearer <token>")
        }
        if let length = request.header("content-length").flatMap({ Int($0) }), length > ServerCore.maxBodyBytes {
            return .error(413, "too_large", "the body (\(length) bytes) is over \(ServerCore.maxBodyBytes) bytes")
        }
        switch route {
        case .chart:
            if request.method == "PUT", request.mediaType != "application/json" {
                return .error(415, "unsupported_media_type", "a chart spec is sent as application/json")
            }
        case .chartPoints(let id):
            guard ["application/json", "text/csv"].contains(request.mediaType ?? "") else {
                return .error(415, "unsupported_media_type", "points are sent as application/json or text/csv")
            }
            if channelsByID[id] == nil { return .unknownChart(id) }
            if let refusal = ServerCore.refusedEncoding(request) { return refusal }
        case .influxWrite:
            if let refusal = ServerCore.refusedEncoding(request) { return refusal }
        default:
            break
        }
        return nil
    }

    private static func refusedEncoding(_ request: APIRequest) -> APIResponse? {
        let encoding = request.header("content-encoding")?.lowercased() ?? "identity"
        guard encoding == "gzip" || encoding == "identity" else {
            return .error(415, "unsupported_media_type", "Content-Encoding \(encoding.prefix(32)) is not supported; use gzip or none")
        }
        return nil
    }

    // MARK: Reads

    /// Answers a `GET`/`HEAD`: at once, or — for points, which may come from the history store
    /// — from a worker.
    private func read(_ route: APIRoute, _ request: APIRequest, reply: @escaping (APIResponse) -> Void) {
        if case .chartPoints(let id) = route { return readPoints(id, request, reply: reply) }
        reply(read(route, request))
    }

    private func read(_ route: APIRoute, _ request: APIRequest) -> APIResponse {
        switch route {
        case .healthz:
            return .text("ok\n")
        case .metrics:
            let figures = history.map { Metrics.HistoryFigures(statistics: $0.store.statistics, pendingPoints: $0.pendingPoints) }
            let body = metrics.render(viewers: viewerCount, charts: liveChannels, rssBytes: ServerCore.residentBytes(), history: figures)
            return .text(body, contentType: "text/plain; version=0.0.4; charset=utf-8")
        case .charts:
            return .json(ChartSpec.encodeList(liveChannels.map(\.spec)))
        case .dashboard:
            return .json(Dashboard(title: dashboardTitle, charts: liveChannels.map(\.spec)).encode())
        case .chart(let id):
            guard let channel = channelsByID[id] else { return .unknownChart(id) }
            let snapshot = channel.snapshot()
            return .json(APIBody.encode(APIBody.ChartState(spec: channel.spec, seq: channel.seq, series: snapshot.series)))
        case .chartSelection(let id):
            guard let channel = channelsByID[id] else { return .unknownChart(id) }
            let update = ServerMessage.SelectionUpdate(chart: id, seq: channel.seq, selection: channel.engine.selection)
            return .json(ServerMessage.selection(update).encode())
        case .chartPoints, .influxWrite:
            return .methodNotAllowed(request.method, allowed: route.allowedMethods)
        }
    }

    // MARK: Writes

    private func write(_ route: APIRoute, _ request: APIRequest, reply: @escaping (APIResponse) -> Void) {
        switch (route, request.method) {
        case (.chart(let id), "PUT"):
            putChart(id, body: request.body, reply: reply)
        case (.chart(let id), "DELETE"):
            deleteChart(id, reply: reply)
        case (.chartPoints(let id), _):
            writePoints(id, request, reply: reply)
        case (.influxWrite, _):
            writeLineProtocol(request, reply: reply)
        default:
            reply(.methodNotAllowed(request.method, allowed: route.allowedMethods))
        }
    }

    /// `PUT /api/charts/{id}`: 201 created or 200 replaced, with the stored spec — saved in the
    /// history store first when the server keeps one. In its turn on the chart (`ChartOrder`):
    /// after the writes already under way on it are applied, before any that arrive later start.
    private func putChart(_ id: String, body: [UInt8], reply: @escaping (APIResponse) -> Void) {
        let spec: ChartSpec
        switch parseSpec(id, body: body) {
        case .failure(let refusal): return reply(refusal.response)
        case .success(let parsed): spec = parsed
        }
        if cluster != nil {
            return clusterDefine(spec) { result in
                switch result {
                case .failure(let error): reply(.unavailable(error))
                case .success(let definition): reply(.json(spec.encoded(), status: definition == .created ? 201 : 200))
                }
            }
        }
        chartOrder.run([id], exclusive: true) { ticket in
            let finish = { (response: APIResponse) in
                reply(response)
                self.chartOrder.finish(ticket)
            }
            let saves: [HistoryWrite] = self.history == nil ? [] : [.save(spec)]
            self.afterCommit(saves, { () }, done: { result in
                switch result {
                case .failure(let error):
                    finish(.unavailable(error))
                case .success:
                    self.defineRefilled(spec) { definition in
                        finish(.json(spec.encoded(), status: definition == .created ? 201 : 200))
                    }
                }
            })
        }
    }

    /// `DELETE /api/charts/{id}`: 204, the chart and its stored history gone; in its turn on the
    /// chart, like `PUT`.
    private func deleteChart(_ id: String, reply: @escaping (APIResponse) -> Void) {
        if cluster != nil {
            guard channelsByID[id] != nil else { return reply(.unknownChart(id)) }
            return clusterRemove(id) { result in
                switch result {
                case .failure(let error): reply(.unavailable(error))
                case .success(let removed): reply(removed ? .noContent : .unknownChart(id))
                }
            }
        }
        chartOrder.run([id], exclusive: true) { ticket in
            let finish = { (response: APIResponse) in
                reply(response)
                self.chartOrder.finish(ticket)
            }
            guard self.channelsByID[id] != nil else { return finish(.unknownChart(id)) }
            let deletes: [HistoryWrite] = self.history == nil ? [] : [.delete(id)]
            self.afterCommit(deletes, { self.remove(chart: id) }, done: { result in
                switch result {
                case .failure(let error): finish(.unavailable(error))
                case .success(let removed): finish(removed ? .noContent : .unknownChart(id))
                }
            })
        }
    }

    /// A refused request, carried as an error so `Result` can hold it.
    private struct Refusal: Error { var response: APIResponse }

    /// The spec of a `PUT` body for chart `id` (the body's `id`, when it has one, must match).
    private func parseSpec(_ id: String, body: [UInt8]) -> Result<ChartSpec, Refusal> {
        func refuse(_ message: String) -> Result<ChartSpec, Refusal> {
            .failure(Refusal(response: .error(400, "bad_request", message)))
        }
        do {
            guard ChartSpec.isValidID(id) else {
                return refuse("id: \"\(id.prefix(80))\" must be \(ChartSpec.idRule)")
            }
            guard case .object(var members) = try JSONReader.parse(body) else {
                return refuse("a chart spec must be a JSON object")
            }
            if let given = members.first(where: { $0.0 == "id" })?.1 {
                guard given.string == id else {
                    return refuse("id: \(given.string.map { "\"\($0.prefix(80))\"" } ?? given.typeName) does not match the URL's \"\(id)\"")
                }
            } else {
                members.insert(("id", .string(id)), at: 0)
            }
            return .success(try ChartSpec.parse(.object(members)))
        } catch let error as JSONReadError {
            return refuse("the body is not JSON: \(error)")
        } catch let error as ProtocolError {
            return refuse(error.message)
        } catch {
            return refuse("\(error)")
        }
    }

    /// `POST /api/charts/{id}/points`: parsed on a worker, validated and applied here.
    private func writePoints(_ id: String, _ request: APIRequest, reply: @escaping (APIResponse) -> Void) {
        let csv = request.mediaType == "text/csv", gzip = request.header("content-encoding")?.lowercased() == "gzip"
        let body = request.body
        onWorker({
            let bytes = gzip ? try Gzip.inflate(body, limit: IngestLimits.standard.maxInflatedBytes) : body
            return csv ? try CSVPointsParser.parse(bytes) : try JSONPointsParser.parse(bytes)
        }, then: { (result: Result<PointBatch, Error>) in
            switch result {
            case .success(let batch): self.write(batch, to: id) { reply(APIResponse($0)) }
            case .failure(let error): reply(.unreadable(error))
            }
        })
    }

    /// `POST /api/v2/write`: InfluxDB line protocol, one chart per measurement, auto-created
    /// (time x, line) unless `--no-auto-create`; 204 like InfluxDB.
    private func writeLineProtocol(_ request: APIRequest, reply: @escaping (APIResponse) -> Void) {
        let precision: LineProtocolPrecision
        do {
            precision = try LineProtocolPrecision.parse(query: request.queryValue("precision"))
        } catch let error as IngestError {
            return reply(.error(error))
        } catch {
            return reply(.error(400, "bad_request", "\(error)"))
        }
        let gzip = request.header("content-encoding")?.lowercased() == "gzip"
        let body = request.body
        let receivedAt = Double(Int64((Date.timeIntervalSinceReferenceDate + Date.timeIntervalBetween1970AndReferenceDate) * 1000))
        onWorker({
            let bytes = gzip ? try Gzip.inflate(body, limit: IngestLimits.standard.maxInflatedBytes) : body
            return try LineProtocolParser.parse(bytes, precision: precision, receivedAt: receivedAt)
        }, then: { (result: Result<LineProtocolWrite, Error>) in
            switch result {
            case .success(let write): self.write(write, reply: reply)
            case .failure(let error): reply(.unreadable(error))
            }
        })
    }

    /// Runs `work` on a worker thread, then `then` with its result on the service thread.
    func onWorker<T>(_ work: @escaping () throws -> T, then: @escaping (Result<T, Error>) -> Void) {
        let back = runOnServiceThread
        ServerCore.workers.async {
            ServerCore.yieldToTheServiceThread()
            let result = Result { try work() }
            back { then(result) }
        }
    }

    /// Puts the calling worker thread below the service thread (`IdlePriority`; one system call
    /// per job, small beside parsing a body): where parsing shares a core with the service
    /// thread, a big body being parsed must not keep the service thread from reading pointer
    /// input and writing to viewers. libdispatch on Linux does not turn a queue's QoS into a
    /// thread priority; the pool's threads run only this server's background work (parsing,
    /// history reads).
    static func yieldToTheServiceThread() {
        IdlePriority.adoptForCallingThread()
    }

    /// Parsing write bodies, off the service thread.
    static let workers = DispatchQueue(label: "chartcast.ingest", qos: .userInitiated, attributes: .concurrent)

    // MARK: Idempotency

    /// Runs `body` once per `Idempotency-Key` (when the request has one): a repeat within five
    /// minutes gets the first answer again (or waits for it), 5xx answers are not kept.
    private func withIdempotency(_ request: APIRequest, reply: @escaping (APIResponse) -> Void,
                                 _ body: @escaping (@escaping (APIResponse) -> Void) -> Void) {
        guard let key = request.header("idempotency-key"), !key.isEmpty else { return body(reply) }
        let cacheKey = IdempotencyCache<APIResponse>.Key(
            scope: writeAccess.scope(authorization: request.header("authorization"), peerIP: request.peerIP),
            endpoint: request.method + " " + request.path, key: String(key.prefix(256)))
        if let link = cluster?.link { return clusterIdempotent(cacheKey, link: link, reply: reply, body) }   // the keys live in Redis
        switch idempotency.begin(cacheKey, now: ServerCore.now(), waiter: reply) {
        case .answered(let answer): reply(answer)
        case .waiting: break
        case .run:
            body { answer in
                self.idempotency.finish(cacheKey, answer: answer, keep: answer.status < 500, now: ServerCore.now())
                reply(answer)
            }
        }
    }
}

extension ChartSpec {
    /// The chart a line-protocol write creates for a measurement naming no chart: time x, a
    /// line, the default interactions, window and retention.
    static func autoCreated(id: String) -> ChartSpec {
        ChartSpec(id: id, title: id, mark: .line, xKind: .time, xLabel: "Time", series: [],
                  interactions: ChartSpec.defaultInteractions(for: .time), window: ChartSpec.defaultWindow,
                  retentionSeconds: ChartSpec.defaultRetentionSeconds)
    }
}

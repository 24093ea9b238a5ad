#if canImport(Glibc)
import Glibc
#endif
import ChartCastProtocol

extension LoadReport {
    /// The same figures as `table`, as one JSON object (times in ms, sizes in bytes).
    public var json: [UInt8] {
        var w = JSONWriter(capacity: 2048)
        func dist(_ name: String, _ d: Distribution) {
            w.key(name); w.beginObject()
            w.key("count"); w.number(Double(d.count))
            w.key("p50"); w.number(d.p50); w.key("p95"); w.number(d.p95)
            w.key("p99"); w.number(d.p99); w.key("max"); w.number(d.max)
            w.endObject()
        }
        w.beginObject()
        w.key("target"); w.string(options.target == .mirror ? "mirror" : "chartcast")
        w.key("url"); w.string(options.url.description)
        if options.urls.count > 1 {
            w.key("urls"); w.beginArray()
            for url in options.urls { w.string(url.description) }
            w.endArray()
        }
        w.key("viewers"); w.number(options.viewers)
        w.key("drivers"); w.number(options.drivers)
        w.key("rate"); w.number(options.rate)
        w.key("duration"); w.number(options.duration)
        w.key("pattern"); w.string(options.pattern.rawValue)
        w.key("stalled"); w.number(options.stalledViewers)
        if options.target == .mirror { w.key("messageSize"); w.number(options.messageSize) }
        w.key("connections"); w.beginObject()
        w.key("attempted"); w.number(counters.attempted)
        w.key("ok"); w.number(counters.connected)
        w.key("failed"); w.number(counters.failed)
        w.key("dropped"); w.number(counters.dropped)
        w.key("ready"); w.number(counters.ready)
        w.endObject()
        dist("connectMs", connect)
        w.key("handshakesPerSecond"); w.number(handshakesPerSecond)
        w.key("pointersSent"); w.number(counters.pointersSent)
        w.key("achievedRate"); w.number(achievedRate)
        w.key("framesReceived"); w.number(counters.framesReceived)
        w.key("bytesReceived"); w.number(counters.bytesReceived)
        w.key("stateMessages"); w.number(counters.selectionsReceived)
        w.key("meanStateBytes"); w.number(meanSelectionBytes)
        w.key("snapshots"); w.number(counters.snapshotsReceived)
        w.key("appends"); w.number(counters.appendsReceived)
        w.key("viewerLists"); w.number(counters.viewerListsReceived)
        w.key("errors"); w.beginObject()
        for (code, n) in counters.errorCodes.sorted(by: { $0.key < $1.key }) { w.key(code); w.number(n) }
        w.endObject()
        dist("fanoutMs", fanout)
        dist("fanoutReadMs", fanoutRead)
        dist("freshnessMs", freshness)
        w.key("maxSeqLag"); w.number(maxSeqLag)
        w.key("driveSeconds"); w.number(driveSeconds)
        w.key("driveFrames"); w.number(driveFrames)
        w.key("clientCPUSeconds"); w.number(clientCPUSeconds)
        w.key("server")
        if let server {
            w.beginObject()
            w.key("pid"); w.number(Int(server.pid))
            w.key("baselineRSS"); w.number(server.baselineRSS)
            w.key("idleRSS"); w.number(server.idleRSS)
            w.key("peakRSS"); w.number(server.peakRSS)
            w.key("rssPerIdleViewer"); w.number(server.rssPerIdleViewer)
            w.key("driveCPUSeconds"); w.number(server.driveCPUSeconds)
            w.key("driveCPUPercent"); w.number(server.driveCPUPercent)
            w.key("cpuMicrosPerFrame"); w.number(server.cpuMicrosPerFrame)
            w.key("arrivalCPUSeconds"); w.number(server.arrivalCPUSeconds)
            w.key("arrivalCPUMicrosPerViewer"); w.number(server.arrivalCPUMicrosPerViewer)
            w.key("departureCPUSeconds"); w.number(server.departureCPUSeconds)
            w.key("departureCPUMicrosPerViewer"); w.number(server.departureCPUMicrosPerViewer)
            w.key("departureSeconds"); w.number(server.departureSeconds)
            w.endObject()
        } else {
            w.null()
        }
        w.key("ingest")
        if let ingest {
            w.beginObject()
            w.key("publishers"); w.number(ingest.publishers)
            w.key("batchPoints"); w.number(ingest.batchPoints)
            w.key("targetRate"); w.number(ingest.targetRate)
            w.key("pointsAccepted"); w.number(ingest.pointsAccepted)
            w.key("pointsPerSecond"); w.number(ingest.pointsPerSecond)
            w.key("batches"); w.number(ingest.batches)
            w.key("failures"); w.number(ingest.failures)
            if let failure = ingest.firstFailure { w.key("firstFailure"); w.string(failure) }
            dist("requestMs", ingest.request)
            dist("toViewerMs", ingest.toViewer)
            w.endObject()
        } else {
            w.null()
        }
        w.key("convergence"); w.beginObject()
        w.key("converged"); w.bool(convergence.converged)
        w.key("compared"); w.number(convergence.compared)
        w.key("divergent"); w.number(convergence.divergentConnections)
        w.key("seconds"); w.number(convergenceSeconds)
        w.key("charts"); w.beginArray()
        for chart in convergence.charts {
            w.beginObject()
            w.key("id"); w.string(chart.id)
            w.key("newestSeq"); w.number(chart.newestSeq)
            w.key("divergent"); w.number(chart.divergent)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        w.key("stalledViewerIDs"); w.beginArray(); for id in stalledViewerIDs { w.string(id) }; w.endArray()
        w.key("stalledLag"); w.number(stalledLag)
        w.key("succeeded"); w.bool(succeeded)
        w.key("failures"); w.beginArray(); for f in failures { w.string(f) }; w.endArray()
        w.endObject()
        return w.bytes
    }
}

/// A file that could not be written.
public struct ReportWriteError: Error, CustomStringConvertible {
    public var description: String
}

extension LoadReport {
    /// Writes `json` (plus a newline) to `path`, replacing the file.
    /// - Throws: `ReportWriteError` when the file cannot be opened or fully written.
    public func writeJSON(to path: String) throws { try ReportWriteError.write(json, to: path) }
}

extension ReportWriteError {
    /// Writes `json` and a newline to `path`, replacing the file: every report's `writeJSON`.
    /// - Throws: `ReportWriteError` when the file cannot be opened or fully written.
    static func write(_ json: [UInt8], to path: String) throws {
        guard let file = fopen(path, "w") else {
            throw ReportWriteError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        let bytes = json + [0x0A]
        guard bytes.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, file) }) == bytes.count else {
            throw ReportWriteError(description: "short write to \(path)")
        }
    }
}

extension LoadReport {
    /// The human-readable table printed on stdout.
    public var table: String {
        var rows: [(String, String)] = []
        func row(_ name: String, _ value: String) { rows.append((name, value)) }
        func ms(_ d: Distribution) -> String {
            "p50 \(Format.fixed(d.p50, 2))  p95 \(Format.fixed(d.p95, 2))  p99 \(Format.fixed(d.p99, 2))  max \(Format.fixed(d.max, 2)) ms  (n=\(d.count))"
        }
        let target = options.target == .mirror ? "mirror (lws-mirror-protocol)" : "chartcast (chartcast.v1)"
        row("target", "\(target) \(options.urls.map(\.description).joined(separator: " "))"
            + (options.urls.count > 1 ? " (connections spread over them; server figures for the first)" : ""))
        let shape = options.target == .mirror ? "\(options.messageSize)-byte messages" : options.pattern.rawValue
        row("load", "\(options.viewers) viewers + \(options.drivers) drivers × \(Format.fixed(options.rate, 1)) Hz, \(shape), \(Format.fixed(options.duration, 1)) s"
            + (options.stalledViewers > 0 ? ", \(options.stalledViewers) stalled" : ""))
        row("connections", "ok \(counters.connected)  failed \(counters.failed)  dropped \(counters.dropped)  ready \(counters.ready)")
        row("connect time", "p50 \(Format.fixed(connect.p50, 2))  p99 \(Format.fixed(connect.p99, 2)) ms  (\(Format.fixed(handshakesPerSecond, 0)) handshakes/s)")
        row("pointer events sent", "\(counters.pointersSent)  (\(Format.fixed(achievedRate, 1)) Hz per driver achieved)")
        row("frames received", "\(counters.framesReceived)  (\(Format.bytes(counters.bytesReceived)))")
        row("state messages", "\(counters.selectionsReceived), mean \(Format.fixed(meanSelectionBytes, 0)) B")
        if options.target == .chartcast {
            row("other messages", "snapshots \(counters.snapshotsReceived)  appends \(counters.appendsReceived)  viewer lists \(counters.viewerListsReceived)  errors \(counters.errorsReceived)"
                + (counters.errorCodes.isEmpty ? "" : " " + counters.errorCodes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")))
        }
        row("fan-out latency", ms(fanout) + (options.stalledViewers > 0 ? " (stalled viewers excluded)" : ""))
        row("  as read by the tester", ms(fanoutRead))
        if options.stalledViewers > 0 {
            row("stalled viewers", "\(stalledViewerIDs.joined(separator: ",")) were \(stalledLag) seq behind when they resumed")
        }
        row("freshness (lag)", ms(freshness) + ", max seq lag \(maxSeqLag)")
        if let ingest {
            row("ingest", "\(ingest.publishers) publishers × \(ingest.batchPoints)-point writes: \(ingest.pointsAccepted) points "
                + "accepted, \(Format.fixed(ingest.pointsPerSecond, 0)) points/s (asked \(Format.fixed(ingest.targetRate, 0))), "
                + "\(ingest.batches) writes, \(ingest.failures) failed")
            row("ingest write time", ms(ingest.request))
            row("ingest to viewer", ingest.toViewer.count > 0 ? ms(ingest.toViewer) : "not measured (no viewer received an ingest chart's update)")
        }
        if let server {
            row("server pid", "\(server.pid)")
            row("server RSS", "baseline \(Format.bytes(server.baselineRSS))  idle \(Format.bytes(server.idleRSS))  peak \(Format.bytes(server.peakRSS))  per idle viewer \(Format.bytes(Int(server.rssPerIdleViewer)))")
            row("server CPU (drive)", "\(Format.fixed(server.driveCPUSeconds, 2)) s = \(Format.fixed(server.driveCPUPercent, 1)) %  \(Format.fixed(server.cpuMicrosPerFrame, 2)) µs/frame over \(driveFrames) frames")
            row("server CPU (arrivals)", "\(Format.fixed(server.arrivalCPUSeconds, 2)) s = \(Format.fixed(server.arrivalCPUMicrosPerViewer, 0)) µs per viewer")
            if let cpu = server.departureCPUSeconds, let perViewer = server.departureCPUMicrosPerViewer, let wall = server.departureSeconds {
                row("server CPU (departures)", "\(Format.fixed(cpu, 2)) s = \(Format.fixed(perViewer, 0)) µs per viewer, all gone after \(Format.fixed(wall, 2)) s")
            } else {
                row("server CPU (departures)", "not measured (the server still held connections after 30 s)")
            }
        } else {
            row("server", "not local or not found (pass --server-pid)")
        }
        row("load tester CPU", "\(Format.fixed(clientCPUSeconds, 2)) s")
        let conv = convergence.converged
            ? "yes, \(convergence.compared) connections × \(convergence.charts.count) charts" + (convergenceSeconds.map { " (\(Format.fixed($0, 2)) s after drivers stopped)" } ?? "")
            : "NO: " + convergence.charts.filter { $0.divergent > 0 }.map { "\($0.id) \($0.divergent) differ" }.joined(separator: ", ")
        row("converged", conv)
        row("result", succeeded ? "PASS" : "FAIL: " + failures.joined(separator: "; "))
        let width = rows.map { $0.0.count }.max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1 }.joined(separator: "\n") + "\n"
    }
}

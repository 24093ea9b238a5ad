@_spi(Benchmarks) import ChartCastServer

/// `chartcast-bench --event`: the server's own CPU for one pointer event (no sockets), at a
/// few audience sizes, so the fixed part (decode, selection engine, one encode) and the part per
/// viewer (picking its frame) can be told apart. `--max-n` caps the audience.
func runEventBench(maxViewers: Int, quick: Bool) {
    let events = quick ? 20_000 : 200_000
    print("| viewers | decode ns | receive ns (decode + engine + encode) | whole event ns | frames/event | ns per extra frame | frame bytes |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    var first: PointerEventBenchmark.Result?
    for viewers in [1, 10, 100, 1_000] where viewers <= maxViewers {
        progress("event: \(viewers) viewers")
        let r = PointerEventBenchmark.run(viewers: viewers, events: viewers >= 1_000 ? events / 20 : events)
        var perFrame = "–"
        if let first, r.framesPerEvent > first.framesPerEvent {
            perFrame = format((r.event - first.event) / (r.framesPerEvent - first.framesPerEvent))
        }
        if first == nil { first = r }
        print("| \(viewers) | \(format(r.decode)) | \(format(r.receive)) | \(format(r.event)) | \(r.framesPerEvent) | \(perFrame) | \(r.frameBytes) |")
    }
}

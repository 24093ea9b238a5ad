#if canImport(Glibc)
import Glibc
#endif
import ChartCastProtocol

/// What `chartcast-load --send-floor` measures: sockets, rate, seconds, message size, pinning.
public struct SendFloorOptions: Sendable, Equatable {
    /// Sockets written per event (a server's viewers).
    public var connections = 1_000
    /// Events per second (a driver's pointer rate).
    public var rate = 60.0
    public var duration = 10.0
    /// Payload bytes per frame (ChartCast's mean state message in the bench's scenario).
    public var messageBytes = 296
    /// What wakes the sender for each event.
    public enum Wake: String, Sendable, CaseIterable {
        /// A message on a socket, read after `epoll_wait`, as a server is woken by a driver.
        case socket
        /// The event's time (a sleep): the sends alone.
        case timer
    }
    public var wake = Wake.socket
    /// CPUs to pin the sending and the reading thread to; nil leaves them to the scheduler.
    public var senderCPU: Int?
    public var readerCPU: Int?
    public var jsonPath: String?

    public init() {}

    public static let usage = """
    chartcast-load --send-floor [options]
      the kernel's price of a fan-out alone: each event (read from a socket) writes one frame with
      one send() to each of N loopback TCP sockets (no event loop, no WebSocket library), a second
      thread drains them
      --viewers N            sockets written per event (default 1000)
      --wake socket|timer    what starts each event: a 128-byte message on a socket, read after
                             epoll_wait, as a driver wakes a server (default), or a timer
      --rate HZ              events per second (default 60)
      --duration S           seconds (default 10)
      --message-size BYTES   payload bytes per frame (default 296)
      --sender-cpu C         pin the sending thread to CPU C (the server's core in make bench)
      --reader-cpu C         pin the reading thread to CPU C
      --json FILE            also write the report as JSON
    Exits 0 when every frame was sent whole and read, 1 otherwise, 2 on bad usage.
    """

    /// Parses the arguments of `--send-floor` (the flag itself is accepted and ignored).
    /// - Throws: `LoadOptionsError` for an unknown option or a bad value.
    public static func parse(_ arguments: [String]) throws -> SendFloorOptions {
        var options = SendFloorOptions()
        var args = ArgumentCursor(arguments)
        while let arg = args.next() {
            switch arg {
            case "--send-floor": break
            case "--viewers": options.connections = try args.integer(arg, min: 1)
            case "--rate": options.rate = try args.number(arg, min: 0.1)
            case "--duration": options.duration = try args.number(arg, min: 0.01)
            case "--message-size": options.messageBytes = try args.integer(arg, min: 1)
            case "--wake": options.wake = try args.choice(arg, of: Wake.self)
            case "--sender-cpu": options.senderCPU = try args.integer(arg, min: 0)
            case "--reader-cpu": options.readerCPU = try args.integer(arg, min: 0)
            case "--json": options.jsonPath = try args.value(arg)
            default: throw LoadOptionsError("unknown option \(arg) for --send-floor")
            }
        }
        return options
    }
}

/// The send() floor's result: CPU per frame on the sending thread and how long one event's
/// sends to every socket took (the least a one-thread fan-out's last viewer waits).
public struct SendFloorReport: Sendable {
    public var options: SendFloorOptions
    /// Events the run was to have.
    public var events: Int
    /// Events the sender fanned out: `events` unless the driver's messages stopped coming.
    public var eventsHandled: Int
    public var frames: Int
    public var frameBytes: Int
    /// Bytes the reader took off the sockets; `frames × frameBytes` when nothing was lost.
    public var bytesReceived: Int
    /// Sends that did not take the whole frame (a full socket buffer): 0 in a sound run.
    public var shortWrites: Int
    public var senderCPUSeconds: Double
    /// Wall time of each event's loop of sends.
    public var bursts: LatencyHistogram
    /// Time from an event's start (its read, when woken by a socket) to the send of a frame,
    /// every 8th frame: the fan-out latency a server paying only the kernel would show.
    public var offsets: LatencyHistogram

    public var cpuMicrosPerFrame: Double { frames > 0 ? senderCPUSeconds / Double(frames) * 1e6 : 0 }
    public var succeeded: Bool { eventsHandled == events && shortWrites == 0 && bytesReceived == frames * frameBytes }

    func burstMs(_ q: Double) -> Double { Double(bursts.percentile(q)) / 1e6 }
    func frameMs(_ q: Double) -> Double { Double(offsets.percentile(q)) / 1e6 }

    /// The human-readable summary.
    public var text: String {
        let o = options
        var lines = [
            "send() floor             \(o.connections) sockets × \(Format.fixed(o.rate, 1)) Hz, \(frameBytes)-byte frames, \(Format.fixed(o.duration, 1)) s, woken by \(o.wake == .socket ? "a socket" : "a timer")",
            "frames sent              \(frames) in \(eventsHandled) of \(events) events, \(shortWrites) short writes",
            "bytes read back          \(bytesReceived) of \(frames * frameBytes)",
            "sender CPU               \(Format.fixed(senderCPUSeconds, 3)) s = \(Format.fixed(cpuMicrosPerFrame, 2)) µs/frame",
            "frame sent after         p50 \(Format.fixed(frameMs(0.5), 2))  p99 \(Format.fixed(frameMs(0.99), 2)) ms from its event's start (every 8th frame)",
            "one event's sends        p50 \(Format.fixed(burstMs(0.5), 2))  p99 \(Format.fixed(burstMs(0.99), 2))  max \(Format.fixed(Double(bursts.maxNanoseconds) / 1e6, 2)) ms",
        ]
        lines.append("result                   \(succeeded ? "PASS" : "FAIL: events were missed or frames cut short or not read back")")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The same figures as one JSON object (times in ms).
    public var json: [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.key("target"); w.string("send-floor")
        w.key("viewers"); w.number(options.connections)
        w.key("rate"); w.number(options.rate)
        w.key("duration"); w.number(options.duration)
        w.key("messageSize"); w.number(options.messageBytes)
        w.key("wake"); w.string(options.wake.rawValue)
        w.key("events"); w.number(events)
        w.key("eventsHandled"); w.number(eventsHandled)
        w.key("frames"); w.number(frames)
        w.key("frameBytes"); w.number(frameBytes)
        w.key("bytesReceived"); w.number(bytesReceived)
        w.key("shortWrites"); w.number(shortWrites)
        w.key("senderCPUSeconds"); w.number(senderCPUSeconds)
        w.key("cpuMicrosPerFrame"); w.number(cpuMicrosPerFrame)
        w.key("frameMs"); w.beginObject()
        w.key("p50"); w.number(frameMs(0.5)); w.key("p99"); w.number(frameMs(0.99))
        w.endObject()
        w.key("burstMs"); w.beginObject()
        w.key("p50"); w.number(burstMs(0.5)); w.key("p99"); w.number(burstMs(0.99))
        w.key("max"); w.number(Double(bursts.maxNanoseconds) / 1e6)
        w.endObject()
        w.key("succeeded"); w.bool(succeeded)
        w.endObject()
        return w.bytes
    }

    /// Writes `json` (plus a newline) to `path`.
    /// - Throws: `ReportWriteError` when the file cannot be written.
    public func writeJSON(to path: String) throws { try ReportWriteError.write(json, to: path) }
}

/// What one soak run does: a crowd of viewers and drivers held for a long time against one
/// server, with viewers stalling (not reading for a while), viewers and mid-drag drivers vanishing
/// (dropped without a close frame, then replaced), and drivers freezing mid-drag (silent past the
/// server's drag lease), while the server's memory is sampled.
public struct SoakOptions: Sendable, Equatable {
    public var url = LoadURL(host: "127.0.0.1", port: 8080, path: "/ws")
    /// The server's process id, for RSS; found by port when nil and the host is local.
    public var serverPID: Int32?
    /// Seconds the soak runs (then the drivers stop and convergence is checked).
    public var seconds = 1_800.0
    /// Seconds from the start before RSS must hold steady; nil: a third of the run, at most 300.
    public var warmup: Double?
    /// Reading viewers held connected (vanished ones are replaced).
    public var viewers = 1_000
    /// Drivers sending pointer sequences (the mixed pattern: hovers, scrubs, ranges, pins).
    public var drivers = 4
    /// Pointer events per driver per second.
    public var rate = 10.0
    /// Viewers not reading at any moment: each stalls for `stallSeconds`, then reads again and
    /// another one stalls.
    public var stalled = 5
    public var stallSeconds = 15.0
    /// Seconds between two vanishings: one viewer and one driver holding a press, each dropped
    /// without a close frame and replaced by a fresh connection.
    public var vanishEvery = 10.0
    /// Seconds between two freezes: a driver holding a press stops sending and reading for
    /// `freezeSeconds` (longer than the server's drag lease), then carries on.
    public var freezeEvery = 60.0
    public var freezeSeconds = 15.0
    /// Seconds between two RSS samples and progress lines.
    public var sampleEvery = 10.0
    /// How far each RSS sample after the warm-up may be from the first one after it (0.05: ±5 %).
    public var rssTolerance = 0.05
    /// Seconds to open the initial crowd over.
    public var ramp = 10.0
    /// Seconds allowed for every viewer to converge after the drivers stop.
    public var settleTimeout = 30.0
    /// Print a progress line on stderr every `sampleEvery` seconds.
    public var progress = true
    /// The WebSocket client (`--client`; the soak speaks `ws://` only).
    public var clientKind = LoadClientKind.raw

    public init() {}

    /// The warm-up actually used.
    public var effectiveWarmup: Double { warmup ?? min(300, seconds / 3) }

    public static let usage = """
    chartcast-load --soak SECONDS [options]
      holds a crowd against one server for SECONDS (default 1800), with stalling, vanishing and
      freezing connections, sampling the server's RSS; exits 0 when nothing failed, every viewer
      converged and RSS stayed within the tolerance after the warm-up.
      --url ws://HOST:PORT/PATH   server (default ws://127.0.0.1:8080/ws)
      --server-pid PID            server process for RSS (default: found by port)
      --viewers N                 reading viewers (default 1000)
      --drivers K                 drivers, mixed gestures (default 4)
      --rate HZ                   pointer events per driver per second (default 10)
      --stalled N                 viewers not reading at any moment (default 5)
      --stall-seconds S           how long each stalls (default 15)
      --vanish-every S            a viewer and a mid-drag driver vanish every S seconds (default 10)
      --freeze-every S            a driver freezes mid-drag every S seconds (default 60)
      --freeze-seconds S          for this long (default 15)
      --warmup S                  seconds before RSS must hold (default: a third, at most 300)
      --sample-every S            RSS sample and progress line interval (default 10)
      --rss-tolerance F           allowed RSS deviation after the warm-up (default 0.05)
      --ramp S                    seconds to open the crowd over (default 10)
      --settle S                  seconds allowed for convergence at the end (default 30)
      --client raw|lws            the WebSocket client: the tester's own (default) or libwebsockets'
      --quiet                     no progress lines
    """

    /// Parses the soak's command line (`--soak SECONDS` and the options above).
    /// - Throws: `LoadOptionsError` naming the bad option.
    public static func parse(_ arguments: [String]) throws -> SoakOptions {
        var options = SoakOptions()
        var args = ArgumentCursor(arguments)
        while let arg = args.next() {
            switch arg {
            case "--soak": options.seconds = try args.number(arg, min: 1)
            case "--url":
                let text = try args.value(arg)
                guard let url = LoadURL(text) else { throw LoadOptionsError("--url: expected ws://host:port/path, got \(text)") }
                options.url = url
            case "--server-pid":
                let text = try args.value(arg)
                guard let pid = Int32(text), pid > 0 else { throw LoadOptionsError("--server-pid: bad value \(text)") }
                options.serverPID = pid
            case "--viewers": options.viewers = try args.integer(arg)
            case "--drivers": options.drivers = try args.integer(arg)
            case "--rate": options.rate = try args.number(arg, min: 0.1)
            case "--stalled": options.stalled = try args.integer(arg)
            case "--stall-seconds": options.stallSeconds = try args.number(arg, min: 0.1)
            case "--vanish-every": options.vanishEvery = try args.number(arg, min: 0.1)
            case "--freeze-every": options.freezeEvery = try args.number(arg, min: 0.1)
            case "--freeze-seconds": options.freezeSeconds = try args.number(arg, min: 0.1)
            case "--warmup": options.warmup = try args.number(arg, min: 0)
            case "--sample-every": options.sampleEvery = try args.number(arg, min: 0.1)
            case "--rss-tolerance": options.rssTolerance = try args.number(arg, min: 0)
            case "--ramp": options.ramp = try args.number(arg, min: 0)
            case "--settle": options.settleTimeout = try args.number(arg, min: 0)
            case "--quiet": options.progress = false
            case "--client": options.clientKind = try args.choice(arg, of: LoadClientKind.self)
            default: throw LoadOptionsError("unknown soak option \(arg)")
            }
        }
        guard options.stalled < options.viewers || options.stalled == 0 else {
            throw LoadOptionsError("--stalled must be fewer than --viewers")
        }
        guard options.viewers + options.drivers > 0 else { throw LoadOptionsError("nothing to do: --viewers and --drivers are both 0") }
        guard options.effectiveWarmup < options.seconds else { throw LoadOptionsError("--warmup must be shorter than the soak") }
        return options
    }
}

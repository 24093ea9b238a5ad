/// A command-line error with the message to print before the usage text.
public struct LoadOptionsError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension LoadOptions {
    /// The `--help` text.
    public static let usage = """
    usage: chartcast-load [options]
      --url ws://HOST:PORT/PATH   server (default ws://127.0.0.1:8080/ws; mirror: ws://127.0.0.1:7681/);
                                  wss://… connects over TLS, verifying the server's certificate;
                                  given several times: instances of one dashboard, connection i
                                  (drivers first) and publisher i to the (i mod count)-th
      --insecure                  with wss://: accept a self-signed (or any) certificate
      --client raw|lws            the WebSocket client: the tester's own epoll client (raw, ws://
                                  only, cheap per byte) or libwebsockets' (lws); default raw for
                                  ws://, lws for wss://
      --viewers N                 passive viewers (default 100)
      --drivers K                 connections sending pointer events (default 1)
      --rate HZ                   pointer events per driver per second (default 10)
      --duration S                seconds the drivers run (default 10)
      --ramp S                    seconds to open every connection over (default 1)
      --pattern hover|scrub|range|mixed   driver gestures (default mixed)
      --json FILE                 also write the report as JSON
      --server-pid PID            server process for RSS/CPU (default: found by port when local)
      --mirror                    target libwebsockets-test-server's lws-mirror-protocol
      --message-size BYTES        mirror mode: bytes per message (default 400)
      --stalled N                 viewers that stop reading while the drivers run, then resume
      --settle S                  seconds allowed for convergence after the drivers stop (default 5)
      --connect-timeout S         seconds allowed for connections beyond the ramp (default 20)
      --publishers N              threads writing points over HTTP while the viewers watch, each to
                                  a chart of its own (load-ingest-N, created first; default 0)
      --points-per-second R       points per second all publishers write together (default 100000)
      --batch-points B            points per write (default 10000)
      --retention SECONDS         history the publishers' charts keep (default 0: none stored; more
                                  makes each write wait for the server's commit)
      --write-token T             the server's write token, for the publishers (over https:// when
                                  the URL is wss://, with the same --insecure)
      --quiet                     no progress line on stderr
    Exits 0 when every connection succeeded and every viewer converged, 1 otherwise, 2 on bad usage.

    chartcast-load --compare DIR [--json FILE]
      prints the side-by-side table of the <scenario>.chartcast.json and <scenario>.mirror.json
      reports in DIR (bench/run.sh writes them); exits 1 when a performance target is missed.
    """

    /// Parses command-line arguments (without the program name).
    /// - Throws: `LoadOptionsError` for an unknown option or a bad value.
    public static func parse(_ arguments: [String]) throws -> LoadOptions {
        // `--name=value` is accepted as well as `--name value` (`ArgumentCursor`).
        var options = LoadOptions()
        var explicitURL = false
        var args = ArgumentCursor(arguments)
        while let arg = args.next() {
            switch arg {
            case "--url":
                let text = try args.value(arg)
                guard let url = LoadURL(text) else { throw LoadOptionsError("--url: expected ws://host:port/path or wss://…, got \(text)") }
                if explicitURL { options.urls.append(url) } else { options.url = url }
                explicitURL = true
            case "--viewers": options.viewers = try args.integer(arg)
            case "--drivers": options.drivers = try args.integer(arg)
            case "--rate": options.rate = try args.number(arg, min: 0.1)
            case "--duration": options.duration = try args.number(arg, min: 0)
            case "--ramp": options.ramp = try args.number(arg, min: 0)
            case "--pattern": options.pattern = try args.choice(arg, of: LoadPattern.self)
            case "--json": options.jsonPath = try args.value(arg)
            case "--server-pid":
                let text = try args.value(arg)
                guard let pid = Int32(text), pid > 0 else { throw LoadOptionsError("--server-pid: bad value \(text)") }
                options.serverPID = pid
            case "--mirror": options.target = .mirror
            case "--message-size":
                let size = try args.integer(arg)
                guard size >= 128, size <= 60_000 else { throw LoadOptionsError("--message-size: 128…60000") }
                options.messageSize = size
            case "--stalled": options.stalledViewers = try args.integer(arg)
            case "--settle": options.settleTimeout = try args.number(arg, min: 0)
            case "--connect-timeout": options.connectTimeout = try args.number(arg, min: 0)
            case "--quiet": options.progress = false
            case "--insecure": options.insecure = true
            case "--client": options.client = try args.choice(arg, of: LoadClientKind.self)
            case "--publishers": options.publishers = try args.integer(arg)
            case "--points-per-second": options.pointsPerSecond = try args.number(arg, min: 1)
            case "--batch-points":
                let points = try args.integer(arg)
                guard points >= 1, points <= 1_000_000 else { throw LoadOptionsError("--batch-points: 1…1000000") }
                options.batchPoints = points
            case "--write-token": options.writeToken = try args.value(arg)
            case "--retention": options.retentionSeconds = try args.integer(arg)
            default:
                throw LoadOptionsError("unknown option \(arg)")
            }
        }
        if options.target == .mirror && !explicitURL {
            options.url = LoadURL(host: "127.0.0.1", port: 7681, path: "/")
        }
        guard options.stalledViewers <= options.viewers else { throw LoadOptionsError("--stalled cannot exceed --viewers") }
        guard options.connectionCount > 0 else { throw LoadOptionsError("nothing to do: --viewers and --drivers are both 0") }
        guard options.publishers == 0 || options.target == .chartcast else { throw LoadOptionsError("--publishers needs a ChartCast server, not --mirror") }
        guard Set(options.urls.map(\.tls)).count == 1 else { throw LoadOptionsError("--url: every URL is ws:// or every one wss://") }
        guard options.urls.count == 1 || options.target == .chartcast else { throw LoadOptionsError("several --url need a ChartCast server, not --mirror") }
        guard !options.insecure || options.url.tls else { throw LoadOptionsError("--insecure needs a wss:// URL") }
        guard options.clientKind == .lws || !options.url.tls else { throw LoadOptionsError("--client raw speaks ws:// only; use --client lws for wss://") }
        return options
    }
}

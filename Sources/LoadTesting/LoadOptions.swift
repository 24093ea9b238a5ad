import WebSockets

/// Which pointer sequences drivers send.
public enum LoadPattern: String, CaseIterable, Sendable {
    /// Moves across a hover chart, a new category with every event.
    case hover
    /// Press, drag across a scrub chart's marks, release; repeated.
    case scrub
    /// Press, widen a range step by step, release; repeated.
    case range
    /// Cycles hover sweeps, scrubs, ranges and pin taps across every chart.
    case mixed
}

/// What `chartcast-load` connects to.
public enum LoadTarget: Sendable, Equatable {
    /// A ChartCast server speaking protocol v1 (`chartcast.v1`).
    case chartcast
    /// `libwebsockets-test-server`'s `lws-mirror-protocol`: every message to every client.
    case mirror
}

/// A `ws://host:port/path` or `wss://host:port/path` address.
public struct LoadURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var path: String
    /// `wss://`: the connections speak TLS.
    public var tls: Bool

    public init(host: String, port: Int, path: String, tls: Bool = false) {
        self.host = host
        self.port = port
        self.path = path
        self.tls = tls
    }

    /// Parses `ws://host[:port][/path]` or `wss://…`; the port defaults to 80 (443 for wss)
    /// and the path to `/`.
    public init?(_ text: String) {
        if text.hasPrefix("ws://") {
            tls = false
        } else if text.hasPrefix("wss://") {
            tls = true
        } else {
            return nil
        }
        let rest = text.dropFirst(tls ? 6 : 5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[rest.startIndex..<slash]
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        if let colon = authority.lastIndex(of: ":") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            host = String(authority[authority.startIndex..<colon])
            port = p
        } else {
            host = String(authority)
            port = tls ? 443 : 80
        }
        if host.isEmpty { return nil }
    }

    public var description: String { "\(tls ? "wss" : "ws")://\(host):\(port)\(path)" }
}

/// Everything one load run needs; `LoadOptions.parse(_:)` builds it from the command line.
public struct LoadOptions: Sendable {
    /// The servers, in `--url` order: connection `i` goes to `urls[i % urls.count]` (several
    /// instances of one dashboard, `docs/scale-out.md`).
    public var urls: [LoadURL]
    /// The first server (the only one unless several `--url`s were given).
    public var url: LoadURL {
        get { urls[0] }
        set { urls = [newValue] }
    }
    public var target: LoadTarget
    /// Passive connections that only read (and send viewports).
    public var viewers: Int
    /// Connections that also send pointer sequences.
    public var drivers: Int
    /// Pointer events per driver per second.
    public var rate: Double
    /// Seconds the drivers run.
    public var duration: Double
    /// Seconds over which connections are opened.
    public var ramp: Double
    public var pattern: LoadPattern
    /// Where to write the JSON report, if anywhere.
    public var jsonPath: String?
    /// The server's process id for RSS/CPU; found by port when nil and the host is local.
    public var serverPID: Int32?
    /// Mirror mode: bytes per mirrored message (ChartCast's selection size, for a fair baseline).
    public var messageSize: Int
    /// Viewers that stop reading once ready and resume after the drivers stop.
    public var stalledViewers: Int
    /// Seconds after the drivers stop to wait for every viewer to converge.
    public var settleTimeout: Double
    /// Seconds to wait for connections to complete (on top of the ramp).
    public var connectTimeout: Double
    /// Seconds to wait idle after every connection is ready (idle RSS is sampled then).
    public var idleTime: Double
    /// Print the progress line on stderr each second.
    public var progress: Bool
    /// Threads writing points over HTTP while the viewers watch (each to a chart of its own).
    public var publishers: Int = 0
    /// Points per second all publishers write together.
    public var pointsPerSecond: Double = 100_000
    /// Points per write.
    public var batchPoints: Int = 10_000
    /// Seconds of history the publishers' charts keep (their `retention`): 0 stores nothing,
    /// more makes every write wait for its commit to the server's history store.
    public var retentionSeconds: Int = 0
    /// The server's write token, for publishers (sent as `Authorization: Bearer`).
    public var writeToken: String?
    /// With a `wss://` URL: accept any server certificate (self-signed, expired, another
    /// name) instead of verifying it against the system's CAs.
    public var insecure: Bool = false
    /// The WebSocket client the connections use; nil: the raw one for `ws://`, libwebsockets'
    /// for `wss://` (`--client`).
    public var client: LoadClientKind?

    public init(url: LoadURL = LoadURL(host: "127.0.0.1", port: 8080, path: "/ws"),
                target: LoadTarget = .chartcast, viewers: Int = 100, drivers: Int = 1,
                rate: Double = 10, duration: Double = 10, ramp: Double = 1,
                pattern: LoadPattern = .mixed, jsonPath: String? = nil, serverPID: Int32? = nil,
                messageSize: Int = 400, stalledViewers: Int = 0, settleTimeout: Double = 5,
                connectTimeout: Double = 20, idleTime: Double = 0.5, progress: Bool = true) {
        self.urls = [url]
        self.target = target
        self.viewers = viewers
        self.drivers = drivers
        self.rate = rate
        self.duration = duration
        self.ramp = ramp
        self.pattern = pattern
        self.jsonPath = jsonPath
        self.serverPID = serverPID
        self.messageSize = messageSize
        self.stalledViewers = stalledViewers
        self.settleTimeout = settleTimeout
        self.connectTimeout = connectTimeout
        self.idleTime = idleTime
        self.progress = progress
    }

    /// The WebSocket subprotocol for the target.
    public var subprotocol: String { target == .mirror ? "lws-mirror-protocol" : "chartcast.v1" }

    /// How the WebSocket connections use TLS: off for `ws://`, verified or not for `wss://`.
    public var tls: WebSocketClientTLS { url.tls ? (insecure ? .insecure : .verified) : .off }

    /// The client actually used.
    public var clientKind: LoadClientKind { client ?? .automatic(for: url) }

    /// The server connection `index` (drivers first, then viewers) and publisher `index` go to.
    public func url(for index: Int) -> LoadURL { urls[index % urls.count] }

    /// Total connections: viewers plus drivers.
    public var connectionCount: Int { viewers + drivers }
}

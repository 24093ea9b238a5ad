import ChartCastCluster
import WebSockets
import Foundation

/// Everything `chartcast` can be told on the command line or through `CHARTCAST_*` variables.
public struct ServerOptions: Equatable, Sendable {
    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    /// Directory of the page; nil serves no static files (tests, headless use).
    public var webRoot: String? = nil
    /// Seconds between demo feed updates.
    public var tick: Double = 1.0
    /// Rolling window of the live time charts, in points.
    public var window: Int = 60
    public var deflate: Bool = false
    public var logLevel: LogLevel = .info
    /// A dashboard file served instead of the demo; nil serves the demo.
    public var dashboard: String? = nil
    /// The token writes must present; nil lets loopback peers write without one.
    public var writeToken: String? = nil
    /// Whether a line-protocol write naming no chart creates one.
    public var autoCreate: Bool = true
    /// The history store's directory; nil keeps no history. The `chartcast` command defaults it
    /// to `chartcast-data` in the working directory (`--data none` turns it off); a server made
    /// in code keeps none unless told.
    public var dataDirectory: String? = nil
    /// Seconds between retention sweeps of the history store while the server runs (it also
    /// sweeps once at start).
    public var historySweepInterval: Double = 60
    /// Open WebSockets at most; handshakes beyond are answered 503.
    public var maxViewers: Int = 10_000
    /// Open connections (HTTP and WebSocket) from one IP address at most; more are refused at accept.
    public var maxPerAddress: Int = 1_000
    /// Seconds of WebSocket silence before a ping.
    public var pingInterval: Int = 30
    /// Seconds of WebSocket silence (no message, no pong) before the server hangs up.
    public var idleTimeout: Int = 75
    /// PEM certificate file: with `tlsPrivateKey`, the port speaks only HTTPS and WSS. Both or
    /// neither (`parse` refuses one alone); nil serves plain HTTP.
    public var tlsCertificate: String? = nil
    /// Unencrypted PEM private key file of `tlsCertificate`.
    public var tlsPrivateKey: String? = nil
    /// Origins (`scheme://host[:port]`, normalised by `OriginPolicy`) whose pages may open `/ws`
    /// besides the server's own; a handshake from any other `Origin` is refused with 403.
    public var allowedOrigins: [String] = []
    /// The token `/ws` and `GET /api/*` need (`Authorization: Bearer` or `?token=`); nil leaves
    /// them open. The write token is accepted wherever this one is.
    public var viewerToken: String? = nil
    /// A token that opens `/metrics` (besides the viewer token, when one is set); with neither
    /// set, `/metrics` is public.
    public var metricsToken: String? = nil
    /// Pointer, key and view messages a second that all connections from one address may send
    /// together (burst twice that); 0 turns the per-address budget off (`AddressBudgets`).
    public var maxRatePerAddress: Double = AddressBudgets.defaultRate
    /// Seconds a drag owner may send no input before its drag ends (`--drag-lease`).
    public var dragLease: Double = 10
    /// Bytes a viewer may leave unsent (lws's partial write, queued personal frames) for
    /// `backlogGrace` seconds without a write going through before it is closed (`--max-backlog`).
    public var maxBacklogBytes: Int = 1 << 20
    /// Seconds a viewer may stay over `maxBacklogBytes` without a write going through.
    public var backlogGrace: Double = 2
    /// Seconds a viewer may have output pending without a write going through before it is
    /// closed (`--choke-timeout`).
    public var chokeTimeout: Double = 30
    /// Whether free memory is handed back to the system after many viewers left
    /// (`malloc_trim`; `--no-memory-trim` turns it off).
    public var trimMemory = true
    /// Share the port with other processes started with it (`SO_REUSEPORT`, `--reuse-port`):
    /// several instances of one dashboard (`redis`) on one port, one per core.
    public var reusePort = false
    /// The event loop the service thread runs on (`--event-loop`): an epoll loop of libev's
    /// (the default; libwebsockets' poll loop when its libev plugin cannot be loaded), or
    /// libwebsockets' own poll loop (`docs/performance.md`, "Event loop").
    public var eventLoop: WebSocketEventLoop = .libev
    /// The Redis server that joins this instance with others into one dashboard
    /// (`docs/scale-out.md`); nil serves alone.
    public var redis: RedisEndpoint? = nil
    /// With `redis`: seconds between two snapshots of the dashboard stored in Redis by the
    /// instance holding the snapshot lease, after which the stream is trimmed
    /// (`--snapshot-interval`).
    public var snapshotInterval: Double = 10

    /// What `chartcast` stores history in when neither `--data` nor `CHARTCAST_DATA` says.
    public static let defaultDataDirectory = "chartcast-data"

    public init(host: String = "127.0.0.1", port: Int = 8080, webRoot: String? = nil, tick: Double = 1.0,
                window: Int = 60, deflate: Bool = false, logLevel: LogLevel = .info, dashboard: String? = nil,
                writeToken: String? = nil, autoCreate: Bool = true, dataDirectory: String? = nil) {
        self.host = host
        self.port = port
        self.webRoot = webRoot
        self.tick = tick
        self.window = window
        self.deflate = deflate
        self.logLevel = logLevel
        self.dashboard = dashboard
        self.writeToken = writeToken
        self.autoCreate = autoCreate
        self.dataDirectory = dataDirectory
    }

    /// The options as a log line shows them: secrets replaced.
    public var redacted: ServerOptions {
        var copy = self
        if copy.writeToken != nil { copy.writeToken = "<set>" }
        if copy.viewerToken != nil { copy.viewerToken = "<set>" }
        if copy.metricsToken != nil { copy.metricsToken = "<set>" }
        return copy
    }
}

/// What the command line asked for.
public enum CommandLineRequest: Equatable {
    case run(ServerOptions)
    case help
}

/// A command-line mistake, phrased for the user.
public struct OptionsError: Error, CustomStringConvertible, Equatable {
    public var description: String
}

extension ServerOptions {
    public static let usage = """
    Usage: chartcast [options]

    Serves a ChartCast dashboard (the built-in demo unless --dashboard is given): a canvas page
    at /, protocol v1 at /ws and the HTTP API at /api (see docs/api.md).

    Options (each also settable as an environment variable):
      --host ADDR          interface to listen on            CHARTCAST_HOST       (default 127.0.0.1)
      --port N             TCP port, 0 for any free port     CHARTCAST_PORT       (default 8080)
      --web-root DIR       directory of the page             CHARTCAST_WEB_ROOT   (default: web/ next to
                                                                                   the executable or in the
                                                                                   working directory)
      --tick SECONDS       demo feed interval                CHARTCAST_TICK       (default 1)
      --window N           rolling window in points          CHARTCAST_WINDOW     (default 60)
      --deflate            enable permessage-deflate         CHARTCAST_DEFLATE=1  (default off)
      --log-level LEVEL    error, warn, info or debug        CHARTCAST_LOG_LEVEL  (default info)
      --dashboard FILE     serve the charts in FILE          CHARTCAST_DASHBOARD  (default: the demo)
      --write-token TOKEN  token writes must present         CHARTCAST_WRITE_TOKEN (default: none, and
                                                                                   only loopback peers
                                                                                   may write)
      --no-auto-create     line-protocol writes naming no    CHARTCAST_NO_AUTO_CREATE=1
                           chart get 404 instead of creating one
      --data DIR|none      history store directory           CHARTCAST_DATA       (default chartcast-data
                                                                                   in the working directory)
      --max-viewers N      open WebSockets at most (503      CHARTCAST_MAX_VIEWERS (default 10000)
                           beyond)
      --max-per-address N  connections from one IP address   CHARTCAST_MAX_PER_ADDRESS (default 1000)
                           at most (refused beyond)
      --ping-interval S    ping a WebSocket silent S seconds CHARTCAST_PING_INTERVAL (default 30)
      --idle-timeout S     close a WebSocket silent S seconds CHARTCAST_IDLE_TIMEOUT (default 75)
      --tls-cert FILE      PEM certificate: serve HTTPS and  CHARTCAST_TLS_CERT   (default: plain HTTP;
                           WSS only, on the same port                              give both or neither)
      --tls-key FILE       its unencrypted PEM private key   CHARTCAST_TLS_KEY
      --allow-origin ORIGIN  another origin whose pages may  CHARTCAST_ALLOW_ORIGINS (comma-separated;
                           open /ws (scheme://host[:port]);  default: the server's own origin only)
                           repeatable
      --viewer-token TOKEN token /ws and GET /api/* need     CHARTCAST_VIEWER_TOKEN (default: none, open
                           (Bearer header or ?token=)                              to anyone who can connect)
      --metrics-token TOKEN  token that opens /metrics       CHARTCAST_METRICS_TOKEN (default: none; with
                                                                                   a viewer token, that one)
      --max-rate-per-address N  pointer/key/view messages a  CHARTCAST_MAX_RATE_PER_ADDRESS (default 960;
                           second shared by all connections                        0 turns it off)
                           from one address
      --drag-lease SECONDS a drag owner silent this long     CHARTCAST_DRAG_LEASE (default 10)
                           loses the drag
      --max-backlog BYTES  close a viewer whose unsent       CHARTCAST_MAX_BACKLOG (default 1048576)
                           output stays over this
      --choke-timeout S    close a viewer that takes no      CHARTCAST_CHOKE_TIMEOUT (default 30)
                           output for this long
      --reuse-port         share the port with the other     CHARTCAST_REUSE_PORT=1
                           instances started with it
                           (SO_REUSEPORT; with --redis)
      --event-loop LOOP    libev (epoll through libev; poll  CHARTCAST_EVENT_LOOP (default libev)
                           when its plugin is missing) or
                           poll (libwebsockets' own poll())
      --no-memory-trim     keep freed memory after mass      CHARTCAST_NO_MEMORY_TRIM=1
                           departures (default: returned)
      --redis URL          share the dashboard with the      CHARTCAST_REDIS      (default: none, serve alone)
                           other instances using this Redis,
                           redis://HOST[:PORT][/DB]
      --snapshot-interval S  with --redis: seconds between   CHARTCAST_SNAPSHOT_INTERVAL (default 10)
                           snapshots of the dashboard kept
                           in Redis (the stream is trimmed
                           behind each)
      -h, --help           show this help

    Command-line flags override environment variables.
    """

    /// Parses `CHARTCAST_*` variables, then flags (flags win).
    /// - Throws: `OptionsError` naming the bad flag or value.
    public static func parse(arguments: [String], environment: [String: String]) throws -> CommandLineRequest {
        var options = ServerOptions()
        var dataGiven = false
        // `--allow-origin` adds to a list: the first flag replaces what the environment gave.
        var flagsStarted = false
        var originsFromFlags = false
        func apply(_ name: String, _ value: String) throws {
            switch name {
            case "host":
                guard !value.isEmpty else { throw OptionsError(description: "--host needs an address") }
                options.host = value
            case "port":
                guard let port = Int(value), (0...65535).contains(port) else {
                    throw OptionsError(description: "--port must be an integer from 0 to 65535, got \"\(value)\"")
                }
                options.port = port
            case "web-root":
                options.webRoot = value
            case "tick":
                guard let tick = Double(value), tick.isFinite, tick >= 0.01, tick <= 3600 else {
                    throw OptionsError(description: "--tick must be a number of seconds from 0.01 to 3600, got \"\(value)\"")
                }
                options.tick = tick
            case "window":
                guard let window = Int(value), (2...10_000_000).contains(window) else {
                    throw OptionsError(description: "--window must be an integer from 2 to 10000000, got \"\(value)\"")
                }
                options.window = window
            case "deflate":
                switch value.lowercased() {
                case "1", "true", "yes", "on": options.deflate = true
                case "0", "false", "no", "off", "": options.deflate = false
                default: throw OptionsError(description: "CHARTCAST_DEFLATE must be 1 or 0, got \"\(value)\"")
                }
            case "dashboard":
                guard !value.isEmpty else { throw OptionsError(description: "--dashboard needs a file") }
                options.dashboard = value
            case "write-token":
                guard !value.isEmpty else { throw OptionsError(description: "--write-token must not be empty") }
                guard value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw OptionsError(description: "--write-token must be printable ASCII without spaces")
                }
                options.writeToken = value
            case "viewer-token", "metrics-token":
                guard !value.isEmpty else { throw OptionsError(description: "--\(name) must not be empty") }
                guard value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw OptionsError(description: "--\(name) must be printable ASCII without spaces")
                }
                if name == "viewer-token" { options.viewerToken = value } else { options.metricsToken = value }
            case "allow-origin":
                guard let origin = OriginPolicy.normalize(value) else {
                    throw OptionsError(description: "--allow-origin must be an origin such as https://example.com or http://host:8080, got \"\(value.prefix(200))\"")
                }
                if flagsStarted && !originsFromFlags {
                    options.allowedOrigins = []
                    originsFromFlags = true
                }
                if !options.allowedOrigins.contains(origin) { options.allowedOrigins.append(origin) }
            case "max-rate-per-address":
                guard let rate = Double(value), rate.isFinite, rate >= 0, rate <= 1_000_000 else {
                    throw OptionsError(description: "--max-rate-per-address must be a number of messages a second from 0 (off) to 1000000, got \"\(value.prefix(40))\"")
                }
                options.maxRatePerAddress = rate
            case "no-auto-create":
                switch value.lowercased() {
                case "1", "true", "yes", "on": options.autoCreate = false
                case "0", "false", "no", "off", "": options.autoCreate = true
                default: throw OptionsError(description: "CHARTCAST_NO_AUTO_CREATE must be 1 or 0, got \"\(value)\"")
                }
            case "data":
                guard !value.isEmpty else { throw OptionsError(description: "--data needs a directory, or none") }
                options.dataDirectory = value == "none" ? nil : value
                dataGiven = true
            case "max-viewers", "max-per-address":
                guard let count = Int(value), (1...1_000_000).contains(count) else {
                    throw OptionsError(description: "--\(name) must be an integer from 1 to 1000000, got \"\(value)\"")
                }
                if name == "max-viewers" { options.maxViewers = count } else { options.maxPerAddress = count }
            case "ping-interval", "idle-timeout":
                guard let seconds = Int(value), (1...3600).contains(seconds) else {
                    throw OptionsError(description: "--\(name) must be a whole number of seconds from 1 to 3600, got \"\(value)\"")
                }
                if name == "ping-interval" { options.pingInterval = seconds } else { options.idleTimeout = seconds }
            case "tls-cert":
                guard !value.isEmpty else { throw OptionsError(description: "--tls-cert needs a PEM certificate file") }
                options.tlsCertificate = value
            case "tls-key":
                guard !value.isEmpty else { throw OptionsError(description: "--tls-key needs a PEM private key file") }
                options.tlsPrivateKey = value
            case "snapshot-interval":
                guard let seconds = Double(value), seconds.isFinite, seconds >= 0.1, seconds <= 86_400 else {
                    throw OptionsError(description: "--snapshot-interval must be a number of seconds from 0.1 to 86400, got \"\(value)\"")
                }
                options.snapshotInterval = seconds
            case "drag-lease", "choke-timeout":
                guard let seconds = Double(value), seconds.isFinite, seconds >= 0.1, seconds <= 86_400 else {
                    throw OptionsError(description: "--\(name) must be a number of seconds from 0.1 to 86400, got \"\(value)\"")
                }
                if name == "drag-lease" { options.dragLease = seconds } else { options.chokeTimeout = seconds }
            case "reuse-port":
                switch value.lowercased() {
                case "1", "true", "yes", "on", "": options.reusePort = true
                case "0", "false", "no", "off": options.reusePort = false
                default: throw OptionsError(description: "CHARTCAST_REUSE_PORT must be 1 or 0, got \"\(value)\"")
                }
            case "no-memory-trim":
                switch value.lowercased() {
                case "1", "true", "yes", "on": options.trimMemory = false
                case "0", "false", "no", "off", "": options.trimMemory = true
                default: throw OptionsError(description: "CHARTCAST_NO_MEMORY_TRIM must be 1 or 0, got \"\(value)\"")
                }
            case "max-backlog":
                guard let bytes = Int(value), (4_096...(1 << 34)).contains(bytes) else {
                    throw OptionsError(description: "--max-backlog must be a number of bytes from 4096 to 17179869184, got \"\(value)\"")
                }
                options.maxBacklogBytes = bytes
            case "redis":
                do {
                    options.redis = try RedisEndpoint.parse(value)
                } catch {
                    throw OptionsError(description: "--redis: \(error)")
                }
            case "event-loop":
                guard let loop = WebSocketEventLoop(rawValue: value.lowercased()) else {
                    throw OptionsError(description: "--event-loop must be poll or libev, got \"\(value)\"")
                }
                options.eventLoop = loop
            case "log-level":
                guard let level = LogLevel(name: value) else {
                    throw OptionsError(description: "--log-level must be error, warn, info or debug, got \"\(value)\"")
                }
                options.logLevel = level
            default:
                throw OptionsError(description: "unknown option --\(name) (see --help)")
            }
        }
        let names = ["host", "port", "web-root", "tick", "window", "deflate", "log-level", "dashboard", "write-token",
                     "no-auto-create", "data", "max-viewers", "max-per-address", "ping-interval", "idle-timeout",
                     "tls-cert", "tls-key",
                     "viewer-token", "metrics-token", "allow-origin", "max-rate-per-address",
                     "drag-lease", "max-backlog", "choke-timeout", "no-memory-trim", "redis", "snapshot-interval", "reuse-port", "event-loop"]
        let switches: Set<String> = ["deflate", "no-auto-create", "no-memory-trim", "reuse-port"]
        for name in names where name != "allow-origin" {
            let variable = "CHARTCAST_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
            if let value = environment[variable] { try apply(name, value) }
        }
        if let list = environment["CHARTCAST_ALLOW_ORIGINS"] {
            for item in list.split(separator: ",") {
                let origin = item.trimmingCharacters(in: .whitespaces)
                if !origin.isEmpty { try apply("allow-origin", origin) }
            }
        }
        flagsStarted = true
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "-h" || argument == "--help" { return .help }
            guard argument.hasPrefix("--") else {
                throw OptionsError(description: "unexpected argument \"\(argument)\" (see --help)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard names.contains(name) else { throw OptionsError(description: "unknown option --\(name) (see --help)") }
            if switches.contains(name) {
                try apply(name, inlineValue ?? "1")
                continue
            }
            if let inlineValue {
                try apply(name, inlineValue)
            } else {
                guard index < arguments.count else { throw OptionsError(description: "--\(name) needs a value") }
                try apply(name, arguments[index])
                index += 1
            }
        }
        if !dataGiven { options.dataDirectory = ServerOptions.defaultDataDirectory }
        guard options.idleTimeout > options.pingInterval else {
            throw OptionsError(description: "--idle-timeout (\(options.idleTimeout)) must be longer than --ping-interval (\(options.pingInterval))")
        }
        switch (options.tlsCertificate, options.tlsPrivateKey) {
        case (_?, nil): throw OptionsError(description: "--tls-cert needs --tls-key (the certificate's private key) too")
        case (nil, _?): throw OptionsError(description: "--tls-key needs --tls-cert (the key's certificate) too")
        default: break
        }
        return .run(options)
    }

    /// The default page directory: `web/` in the executable's directory or one of the four
    /// above it (which covers `.build/<triple>/<config>/chartcast` in a checkout), else `web/` in
    /// the working directory.
    public static func defaultWebRoot(executablePath: String, workingDirectory: String) -> String? {
        let fileManager = FileManager.default
        var directory = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("web")
            if fileManager.fileExists(atPath: candidate.appendingPathComponent("index.html").path) { return candidate.path }
            directory.deleteLastPathComponent()
        }
        let local = URL(fileURLWithPath: workingDirectory).appendingPathComponent("web")
        if fileManager.fileExists(atPath: local.appendingPathComponent("index.html").path) { return local.path }
        return nil
    }
}

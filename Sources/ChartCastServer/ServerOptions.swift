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
      --drag-lease SECONDS a drag owner silent this long     CHARTCAST_DRAG_LEASE (default 10)
                           loses the drag
      --max-backlog BYTES  close a viewer whose unsent       CHARTCAST_MAX_BACKLOG (default 1048576)
                           output stays over this
      --choke-timeout S    close a viewer that takes no      CHARTCAST_CHOKE_TIMEOUT (default 30)
                           output for this long
      --no-memory-trim     keep freed memory after mass      CHARTCAST_NO_MEMORY_TRIM=1
                           departures (default: returned)
      -h, --help           show this help

    Command-line flags override environment variables.
    """

    /// Parses `CHARTCAST_*` variables, then flags (flags win).
    /// - Throws: `OptionsError` naming the bad flag or value.
    public static func parse(arguments: [String], environment: [String: String]) throws -> CommandLineRequest {
        var options = ServerOptions()
        var dataGiven = false
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
            case "drag-lease", "choke-timeout":
                guard let seconds = Double(value), seconds.isFinite, seconds >= 0.1, seconds <= 86_400 else {
                    throw OptionsError(description: "--\(name) must be a number of seconds from 0.1 to 86400, got \"\(value)\"")
                }
                if name == "drag-lease" { options.dragLease = seconds } else { options.chokeTimeout = seconds }
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
                     "no-auto-create", "data",
                     "drag-lease", "max-backlog", "choke-timeout", "no-memory-trim"]
        let switches: Set<String> = ["deflate", "no-auto-create", "no-memory-trim"]
        for name in names {
            let variable = "CHARTCAST_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
            if let value = environment[variable] { try apply(name, value) }
        }
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

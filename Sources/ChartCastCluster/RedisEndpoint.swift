/// Where a Redis server is: `redis://HOST[:PORT][/DB]`, as `--redis` and `CHARTCAST_REDIS` take it.
///
/// HOST is a name, an IPv4 address or a bracketed IPv6 address; PORT defaults to 6379 and DB
/// (the logical database, `SELECT`) to 0. User names, passwords and query parameters are not
/// taken: a URL with them is refused rather than silently half-used.
public struct RedisEndpoint: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var database: Int

    /// The port Redis listens on unless told otherwise.
    public static let defaultPort = 6379

    public init(host: String, port: Int = RedisEndpoint.defaultPort, database: Int = 0) {
        self.host = host
        self.port = port
        self.database = database
    }

    /// The URL form, `redis://host:port/db`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(shownHost):\(port)/\(database)"
    }

    /// Parses `redis://HOST[:PORT][/DB]`.
    /// - Throws: `RedisURLError` naming what is wrong.
    public static func parse(_ url: String) throws -> RedisEndpoint {
        func refuse(_ why: String) -> RedisURLError {
            RedisURLError(description: "\(why): expected redis://HOST[:PORT][/DB], got \"\(url.prefix(200))\"")
        }
        guard url.hasPrefix("redis://") else { throw refuse("the URL must start with redis://") }
        var rest = Substring(url.dropFirst("redis://".count))
        guard !rest.contains("@") else { throw refuse("user names and passwords are not supported") }
        guard !rest.contains("?"), !rest.contains("#") else { throw refuse("query parameters are not supported") }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let number = Int(path), (0...65_535).contains(number) else {
                    throw refuse("the database must be a number from 0 to 65535")
                }
                database = number
            }
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw refuse("an IPv6 address needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("a port follows the address after a colon") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw refuse("the host is missing") }
        var port = defaultPort
        if let portText {
            guard let number = Int(portText), (1...65_535).contains(number) else {
                throw refuse("the port must be a number from 1 to 65535")
            }
            port = number
        }
        return RedisEndpoint(host: String(host), port: port, database: database)
    }
}

/// A `--redis` value that is not a Redis URL ChartCast can use.
public struct RedisURLError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

import Foundation

/// Maps a request path to a file under a web root, refusing anything that
/// could leave the root.
///
/// The path is percent-decoded (again: libwebsockets decoded it once, so
/// double-encoded tricks such as `%252e%252e` are decoded here), then refused
/// when it contains a NUL, a backslash, a malformed escape or any segment that
/// starts with a dot (`..`, `.`, hidden files). The surviving path is resolved
/// with `realpath`, which follows symlinks, and must still lie inside the
/// resolved root.
///
/// - Note: a value; safe on any thread (it only reads the file system).
struct StaticFileResolver {
    /// What a request path maps to.
    enum Resolution: Equatable {
        case file(path: String, contentType: String)
        case forbidden
        case notFound
    }

    /// The web root after `realpath`, without a trailing slash.
    let root: String

    /// Returns nil when `webRoot` does not exist.
    init?(webRoot: String) {
        guard let resolved = StaticFileResolver.realPath(webRoot) else { return nil }
        self.root = resolved.count > 1 && resolved.hasSuffix("/") ? String(resolved.dropLast()) : resolved
    }

    /// Resolves `requestPath` (the path part of the URL, without the query).
    /// - Complexity: O(path length) plus one `realpath` and one `stat`.
    func resolve(_ requestPath: String) -> Resolution {
        guard let decoded = StaticFileResolver.percentDecode(Array(requestPath.utf8)) else { return .forbidden }
        if decoded.contains(0) || decoded.contains(UInt8(ascii: "\\")) { return .forbidden }
        let text = String(decoding: decoded, as: UTF8.self)
        if text.unicodeScalars.contains(where: { $0 == "\u{FFFD}" }) { return .forbidden }
        var segments: [Substring] = []
        for segment in text.split(separator: "/", omittingEmptySubsequences: true) {
            if segment.hasPrefix(".") { return .forbidden }
            segments.append(segment)
        }
        if text.isEmpty || text.hasSuffix("/") {
            segments.append("index.html")
        }
        let candidate = root + "/" + segments.joined(separator: "/")
        guard let resolved = StaticFileResolver.realPath(candidate) else { return .notFound }
        let prefix = root == "/" ? "/" : root + "/"
        guard resolved.hasPrefix(prefix) else { return .forbidden }
        var info = stat()
        guard stat(resolved, &info) == 0 else { return .notFound }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            let index = resolved + "/index.html"
            if let indexPath = StaticFileResolver.realPath(index), indexPath.hasPrefix(prefix) {
                return .file(path: indexPath, contentType: StaticFileResolver.contentType(forPath: indexPath))
            }
            return .notFound
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .notFound }
        return .file(path: resolved, contentType: StaticFileResolver.contentType(forPath: resolved))
    }

    /// The content type for a file name, from its extension.
    static func contentType(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        case "json": return "application/json"
        case "ico": return "image/x-icon"
        case "txt": return "text/plain; charset=utf-8"
        case "map": return "application/json"
        case "wasm": return "application/wasm"
        default: return "application/octet-stream"
        }
    }

    /// Decodes `%XX` escapes; nil for a malformed escape.
    static func percentDecode(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension Logger {
    /// How many characters of a user-supplied string a log line shows before `…`.
    public static let maxLoggedCharacters = 80

    /// `text` as a log line may show it: C0 and C1 control characters, DEL, and the invisible
    /// direction marks, overrides and isolates written as visible escapes (`\u{1B}`, `\u{0D}`,
    /// `\u{202E}`), so no user-supplied string can end a line, forge another, reach the terminal
    /// as an escape sequence or reorder what is shown; and at most `limit` characters, then `…`.
    /// - Complexity: O(min(length, limit)): a megabyte string costs what 80 characters do.
    public static func sanitized(_ text: String, limit: Int = Logger.maxLoggedCharacters) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                return out
            }
            if Logger.needsEscape(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }

    /// `sanitized(text)` in double quotes (a quote inside shows as `\"`).
    public static func quoted(_ text: String, limit: Int = Logger.maxLoggedCharacters) -> String {
        "\"" + sanitized(text, limit: limit).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// C0, DEL, C1, and U+200E/F, U+202A–E, U+2066–9 (bidi marks, overrides, isolates).
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

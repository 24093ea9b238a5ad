import Foundation

/// The one rule for viewer names, applied by the server to every `hello` (and mirrored by the
/// page before it sends one).
///
/// Control characters (C0, C1) and bidirectional marks, overrides and isolates (U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069) are removed, since they can forge log lines or flip the text
/// around them; then the name is NFC-normalised (after the removal, which can join a letter to a
/// combining mark it was kept apart from) and whitespace at both ends is trimmed, so normalising
/// a normalised name changes no byte. What is left must be non-empty and at most `maxNameLength` Unicode scalars
/// and `maxNameBytes` UTF-8 bytes.
public enum ViewerName {
    /// The name as it will be shown, or a `bad_field` error naming the `name` field.
    /// - Complexity: O(length of `raw`).
    public static func normalise(_ raw: String, limits: ProtocolLimits = .v1) throws -> String {
        var kept = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars where !isRemoved(scalar) {
            kept.append(scalar)
        }
        let name = String(kept).precomposedStringWithCanonicalMapping.trimmingSpaces()
        guard !name.isEmpty else { throw ProtocolError(.badField, "field \"name\" must not be empty") }
        let scalars = name.unicodeScalars.count
        guard scalars <= limits.maxNameLength else {
            throw ProtocolError(.badField, "field \"name\" is longer than \(limits.maxNameLength) characters (\(scalars))")
        }
        let bytes = name.utf8.count
        guard bytes <= limits.maxNameBytes else {
            throw ProtocolError(.badField, "field \"name\" is longer than \(limits.maxNameBytes) bytes of UTF-8 (\(bytes))")
        }
        return name
    }

    /// C0 and C1 controls (tab and line breaks included: a name is one line) and bidi marks,
    /// overrides and isolates.
    static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

extension String {
    /// The string without leading and trailing whitespace (Unicode `White_Space`).
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}

import CLibWebsockets
import Foundation

/// C strings and C arrays handed to libwebsockets, freed only after the
/// context that points into them is destroyed.
final class CAllocations {
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var blocks: [UnsafeMutableRawPointer] = []

    /// A `strdup`'d copy that lives as long as this object.
    func string(_ value: String) -> UnsafeMutablePointer<CChar> {
        let copy = strdup(value)!
        strings.append(copy)
        return copy
    }

    /// The optional variant.
    func string(_ value: String?) -> UnsafePointer<CChar>? {
        guard let value = value else { return nil }
        return UnsafePointer(string(value))
    }

    /// A zeroed array of `count` elements of `T` that lives as long as this object.
    func array<T>(of type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let raw = calloc(count, MemoryLayout<T>.stride)!
        blocks.append(raw)
        return raw.bindMemory(to: T.self, capacity: count)
    }

    deinit {
        strings.forEach { free($0) }
        blocks.forEach { free($0) }
    }
}

extension CAllocations {
    /// The permessage-deflate extension table (plus terminator), living as long as this object.
    /// With `inflatesReceived` false, received messages pass through it compressed
    /// (`permessageDeflateSendOnly`: the server inflates them itself).
    func permessageDeflateExtensions(inflatesReceived: Bool = true) -> UnsafeMutablePointer<lws_extension> {
        let extensions = array(of: lws_extension.self, count: 2)
        extensions[0].name = UnsafePointer(string("permessage-deflate"))
        extensions[0].callback = inflatesReceived ? lws_extension_callback_pm_deflate : permessageDeflateSendOnly
        extensions[0].client_offer = UnsafePointer(string("permessage-deflate; client_max_window_bits"))
        return extensions
    }
}

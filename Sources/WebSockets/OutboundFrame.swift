import CLibWebsockets

/// The headroom libwebsockets needs in front of every payload it writes.
let lwsPre: Int = Int(cc_lws_pre())

/// Immutable bytes with `LWS_PRE` headroom; shareable by many connections.
///
/// Encode a message once and hand the same frame to every connection that
/// should receive it: the payload is stored once and written as is.
///
/// - Note: thread-safe to create anywhere. The frame header is written into the
///   headroom while sending (by libwebsockets, or by the server for a direct write:
///   the same bytes), so a frame is written only on a service thread; hand one frame
///   to the connections of a single server.
public final class OutboundFrame {
    /// Headroom + payload; the payload starts at `storage + lwsPre`.
    private let storage: UnsafeMutableRawPointer
    /// Payload length in bytes.
    public let count: Int
    /// True for a binary frame, false for text.
    public let isBinary: Bool

    /// A text frame with the UTF-8 bytes of `text`.
    public convenience init(text: String) {
        self.init(bytes: Array(text.utf8), isBinary: false)
    }

    /// A text frame from bytes that are already UTF-8 (for example encoded JSON).
    public convenience init(textBytes: [UInt8]) {
        self.init(bytes: textBytes, isBinary: false)
    }

    /// A binary frame.
    public convenience init(binary: [UInt8]) {
        self.init(bytes: binary, isBinary: true)
    }

    private init(bytes: [UInt8], isBinary: Bool) {
        self.count = bytes.count
        self.isBinary = isBinary
        self.storage = UnsafeMutableRawPointer.allocate(byteCount: lwsPre + max(bytes.count, 1), alignment: 16)
        self.storage.initializeMemory(as: UInt8.self, repeating: 0, count: lwsPre)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, source.count > 0 {
                (self.storage + lwsPre).copyMemory(from: base, byteCount: source.count)
            }
        }
    }

    deinit {
        storage.deallocate()
    }

    /// The payload bytes (a copy).
    public var bytes: [UInt8] {
        return Array(UnsafeRawBufferPointer(start: storage + lwsPre, count: count))
    }

    /// Pointer to the payload, with `lwsPre` writable bytes in front of it.
    /// - Note: service thread only (libwebsockets writes into the headroom).
    var payload: UnsafeMutablePointer<UInt8> {
        return (storage + lwsPre).assumingMemoryBound(to: UInt8.self)
    }
}

/// One complete inbound message, reassembled from all its frames.
public enum InboundMessage: Equatable {
    case text([UInt8])
    case binary([UInt8])

    /// The payload whatever the kind.
    public var bytes: [UInt8] {
        switch self {
        case .text(let bytes), .binary(let bytes): return bytes
        }
    }

    /// The payload decoded as UTF-8 (invalid sequences replaced), nil for binary messages.
    public var text: String? {
        if case .text(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }
}

/// RFC 6455 framing as a client needs it: the header of a frame a server sent (never masked),
/// read from the bytes received so far, and client frames (always masked) written whole.
///
/// Pure values, no I/O: `RawWebSocketConnection` feeds it the bytes it reads.
enum WebSocketFraming {
    static let continuation: UInt8 = 0x0, text: UInt8 = 0x1, binary: UInt8 = 0x2
    static let close: UInt8 = 0x8, ping: UInt8 = 0x9, pong: UInt8 = 0xA

    /// The header of one server frame.
    struct Header: Equatable {
        var fin: Bool
        var opcode: UInt8
        /// Bytes of header before the payload.
        var headerLength: Int
        var payloadLength: Int

        var isControl: Bool { opcode & 0x8 != 0 }
        /// Header and payload together.
        var frameLength: Int { headerLength + payloadLength }
    }

    /// What the bytes at hand say about the next frame.
    enum Parsed: Equatable {
        /// Not enough bytes for the header yet.
        case needMore
        case header(Header)
        /// A frame a client must fail the connection for (RFC 6455 § 5), with the close code to send.
        case invalid(code: UInt16, reason: String)
    }

    /// Reads the header of the frame starting at `bytes[0]`. A frame whose payload exceeds
    /// `maxPayload` is refused (1009) from its header alone, before any of it is buffered.
    /// - Complexity: O(1).
    static func parseHeader(_ bytes: UnsafeRawBufferPointer, maxPayload: Int) -> Parsed {
        guard bytes.count >= 2 else { return .needMore }
        let b0 = bytes[0], b1 = bytes[1]
        if b0 & 0x70 != 0 { return .invalid(code: 1002, reason: "reserved bits set with no extension negotiated") }
        let opcode = b0 & 0x0F
        switch opcode {
        case continuation, text, binary, close, ping, pong: break
        default: return .invalid(code: 1002, reason: "unknown opcode \(opcode)")
        }
        if b1 & 0x80 != 0 { return .invalid(code: 1002, reason: "the server masked a frame") }
        let fin = b0 & 0x80 != 0
        var length = Int(b1 & 0x7F)
        var headerLength = 2
        if length == 126 {
            guard bytes.count >= 4 else { return .needMore }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            headerLength = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return .needMore }
            if bytes[2] & 0x80 != 0 { return .invalid(code: 1002, reason: "payload length with its top bit set") }
            var value: UInt64 = 0
            for i in 2..<10 { value = value << 8 | UInt64(bytes[i]) }
            guard value <= UInt64(maxPayload) else { return .invalid(code: 1009, reason: "a frame of \(value) bytes") }
            length = Int(value)
            headerLength = 10
        }
        if opcode & 0x8 != 0 && (length > 125 || !fin) {
            return .invalid(code: 1002, reason: "a control frame longer than 125 bytes or fragmented")
        }
        guard length <= maxPayload else { return .invalid(code: 1009, reason: "a frame of \(length) bytes") }
        return .header(Header(fin: fin, opcode: opcode, headerLength: headerLength, payloadLength: length))
    }

    /// One client frame: FIN set, `opcode`, the payload masked with `mask` (RFC 6455 § 5.3).
    /// - Complexity: O(payload).
    static func clientFrame(opcode: UInt8, payload: [UInt8], mask: UInt32) -> [UInt8] {
        var frame = header(opcode: opcode, masked: true, payloadLength: payload.count)
        let key = [UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF)]
        frame.append(contentsOf: key)
        for (i, byte) in payload.enumerated() { frame.append(byte ^ key[i & 3]) }
        return frame
    }

    /// One unmasked text frame as a server sends it, of `payloadBytes` spaces (the send() floor's
    /// stand-in for a state message of that size).
    static func serverTextFrame(payloadBytes: Int) -> [UInt8] {
        header(opcode: 0x1, masked: false, payloadLength: payloadBytes) + [UInt8](repeating: 0x20, count: payloadBytes)
    }

    /// A frame's first bytes: FIN and `opcode`, the mask bit and the payload length in the
    /// shortest form (7 bits, 16 or 64).
    private static func header(opcode: UInt8, masked: Bool, payloadLength count: Int) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(count + 14)
        frame.append(0x80 | opcode)
        let mask: UInt8 = masked ? 0x80 : 0
        if count < 126 {
            frame.append(mask | UInt8(count))
        } else if count <= 0xFFFF {
            frame.append(mask | 126)
            frame.append(UInt8(count >> 8))
            frame.append(UInt8(count & 0xFF))
        } else {
            frame.append(mask | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF)) }
        }
        return frame
    }

    /// The payload of a close frame: the code (network order) and a reason, when there is a code.
    static func closePayload(code: UInt16?, reason: String = "") -> [UInt8] {
        guard let code else { return [] }
        return [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
    }

    /// The code of a received close frame's payload (nil when it carries none).
    static func closeCode(_ payload: UnsafeRawBufferPointer) -> UInt16? {
        payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
    }
}

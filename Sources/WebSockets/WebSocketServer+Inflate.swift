/// Compressed messages (permessage-deflate): inflated piece by piece into the assembler, so the
/// message size limit bounds what is ever inflated, and a message over it is dropped without
/// inflating the rest (a "deflate bomb" costs the server at most the limit).
extension WebSocketServer {
    /// Inflates one received chunk of a compressed message into the connection's assembler.
    /// - Returns: the assembler's event, or nil when the connection was closed (invalid deflate
    ///   data: 1007; no inflater: 1011).
    /// - Note: service thread only.
    func inflate(_ chunk: UnsafeRawBufferPointer, binary: Bool, final: Bool, on connection: WebSocketConnection) -> MessageAssembler.Event? {
        let nothing = UnsafeRawBufferPointer(start: nil, count: 0)
        if connection.assembler.isDiscarding {
            return connection.assembler.append(nothing, binary: binary, final: final)
        }
        if connection.inflater == nil { connection.inflater = PermessageInflater() }
        guard let inflater = connection.inflater else {
            WebSocketLog.log(.error, "zlib could not start an inflater for connection \(connection.id)")
            connection.close(code: WebSocketCloseCode.internalError, reason: "cannot inflate")
            return nil
        }
        var event = MessageAssembler.Event.none
        let valid = inflater.inflate(chunk, endOfMessage: final) { piece in
            guard connection.assembler.append(piece, binary: binary, final: false) != .exceededLimit else {
                event = .exceededLimit
                return false
            }
            return true
        }
        guard valid else {
            WebSocketLog.log(.info, "connection \(connection.id) sent invalid compressed data")
            connection.close(code: WebSocketCloseCode.invalidPayload, reason: "invalid compressed data")
            return nil
        }
        if final {
            let last = connection.assembler.append(nothing, binary: binary, final: true)
            if event == .none { event = last }
        }
        return event
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

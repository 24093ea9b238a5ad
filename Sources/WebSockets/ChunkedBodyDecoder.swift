/// Removes HTTP/1.1 chunked transfer coding (RFC 9112 §7.1) from a request body as it arrives,
/// appending the data straight to the body being collected: one copy per byte.
///
/// libwebsockets 4.1 does not decode chunked request bodies itself; it hands the raw coded
/// bytes to `LWS_CALLBACK_HTTP_BODY`, so the server decodes them here. Chunk extensions and
/// trailer fields are read and dropped. Bounded: the decoded body, a chunk-size line and the
/// trailer section each have a limit.
struct ChunkedBodyDecoder {
    enum Event: Equatable {
        /// Everything given was consumed; the body is not complete yet.
        case needMore
        /// The last chunk and the trailer section ended; `consumed` bytes of the input belonged
        /// to the body (anything after them is not part of it).
        case complete(consumed: Int)
        /// The decoded body would pass `limit`: nothing past the limit was appended.
        case tooLarge
        /// Not chunked coding.
        case malformed(String)
    }

    private enum State {
        case size, sizeExtension, sizeLF, data, dataCR, dataLF, trailerLineStart, trailerLine, trailerLF, finalLF, done, failed
    }

    /// The most bytes of a chunk-size line (size and extensions) and of the trailer section.
    static let maxLineBytes = 4096
    static let maxTrailerBytes = 8192

    /// The largest decoded body accepted.
    let limit: Int
    private var state = State.size
    private var chunkRemaining = 0
    private var sizeDigits = 0
    private var lineBytes = 0
    private var trailerBytes = 0

    init(limit: Int) {
        self.limit = limit
    }

    var isComplete: Bool { state == .done }

    /// Decodes `input`, appending chunk data to `body`.
    mutating func feed(_ input: UnsafeRawBufferPointer, into body: inout [UInt8]) -> Event {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return state == .done ? .complete(consumed: 0) : .needMore
        }
        let count = input.count
        var i = 0
        while i < count {
            switch state {
            case .data:
                let take = min(chunkRemaining, count - i)
                if body.count + take > limit {
                    state = .failed
                    return .tooLarge
                }
                body.append(contentsOf: UnsafeBufferPointer(start: base + i, count: take))
                chunkRemaining -= take
                i += take
                if chunkRemaining == 0 { state = .dataCR }
                continue
            case .done:
                return .complete(consumed: i)
            case .failed:
                return .malformed("chunked body after an error")
            default:
                break
            }
            let byte = base[i]
            i += 1
            switch state {
            case .size:
                if let digit = ChunkedBodyDecoder.hexValue(byte) {
                    sizeDigits += 1
                    // 15 hex digits keep the size far below Int.max; a bigger one is over any limit.
                    guard sizeDigits <= 15 else { return fail("chunk size too long") }
                    chunkRemaining = chunkRemaining * 16 + digit
                    if chunkRemaining > limit - body.count {
                        state = .failed
                        return .tooLarge
                    }
                } else if sizeDigits > 0 && (byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")) {
                    state = .sizeExtension
                } else if sizeDigits > 0 && byte == 13 {
                    state = .sizeLF
                } else {
                    return fail("bad chunk size")
                }
                lineBytes += 1
            case .sizeExtension:
                lineBytes += 1
                guard lineBytes <= ChunkedBodyDecoder.maxLineBytes else { return fail("chunk extension too long") }
                if byte == 13 { state = .sizeLF } else if byte == 10 { return fail("bare LF in chunk size line") }
            case .sizeLF:
                guard byte == 10 else { return fail("chunk size line not ended by CRLF") }
                lineBytes = 0
                sizeDigits = 0
                if chunkRemaining == 0 {
                    state = .trailerLineStart
                } else {
                    state = .data
                }
            case .dataCR:
                guard byte == 13 else { return fail("chunk data longer than its size") }
                state = .dataLF
            case .dataLF:
                guard byte == 10 else { return fail("chunk data not ended by CRLF") }
                state = .size
            case .trailerLineStart:
                trailerBytes += 1
                if byte == 13 {
                    state = .finalLF
                } else if byte == 10 {
                    return fail("bare LF in trailer")
                } else {
                    state = .trailerLine
                }
            case .trailerLine:
                trailerBytes += 1
                guard trailerBytes <= ChunkedBodyDecoder.maxTrailerBytes else { return fail("trailer section too long") }
                if byte == 13 { state = .trailerLF } else if byte == 10 { return fail("bare LF in trailer") }
            case .trailerLF:
                guard byte == 10 else { return fail("trailer line not ended by CRLF") }
                state = .trailerLineStart
            case .finalLF:
                guard byte == 10 else { return fail("chunked body not ended by CRLF") }
                state = .done
                return .complete(consumed: i)
            case .data, .done, .failed:
                break
            }
        }
        return .needMore
    }

    private mutating func fail(_ reason: String) -> Event {
        state = .failed
        return .malformed(reason)
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}

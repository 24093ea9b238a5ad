/// Reassembles one connection's inbound messages from receive callbacks.
///
/// libwebsockets hands a message over in pieces: one per frame when the peer
/// fragments it, and a large frame in several chunks. The assembler joins the
/// pieces until the final one, enforcing a size limit without growing past it:
/// once a message is over the limit, the rest of it is dropped on arrival and
/// the owner is told once.
///
/// - Note: a value owned by one connection on its service thread.
struct MessageAssembler {
    /// What a chunk completed.
    enum Event: Equatable {
        /// The message continues.
        case none
        /// A whole message arrived.
        case message(InboundMessage)
        /// The current message just went over the limit; its remainder will be discarded.
        case exceededLimit
    }

    /// The largest message accepted, in bytes.
    let maxMessageSize: Int
    private var buffer: [UInt8] = []
    private var inMessage = false
    private var isBinary = false
    private var discarding = false
    /// Bytes of the current frame still to come, as of the last chunk.
    private var remainingInCurrentFrame = 0
    /// The most bytes of an oversize message worth reading and dropping before a close: a peer
    /// claiming more (a header saying 2^62 bytes) is closed at once.
    static let maxDrainBytes = 1 << 20

    init(maxMessageSize: Int) {
        self.maxMessageSize = max(0, maxMessageSize)
    }

    /// True between the first chunk of a message and its last.
    var isInMessage: Bool { return inMessage }

    /// True while the bytes of an oversize message are being dropped.
    var isDiscarding: Bool { return discarding }

    /// True while an oversize message is being dropped and the rest of its frame is small enough
    /// to read before closing (closing with unread bytes resets the connection, losing what
    /// was written before the close).
    var closeWaitsForRest: Bool { return discarding && remainingInCurrentFrame <= MessageAssembler.maxDrainBytes }

    /// Bytes held for the message in progress.
    var bufferedCount: Int { return buffer.count }

    /// Adds one received chunk.
    ///
    /// - Parameters:
    ///   - chunk: the bytes of this callback.
    ///   - binary: whether the message is binary (taken from the first chunk).
    ///   - final: whether this chunk ends the message (final fragment, nothing remaining).
    ///   - remainingInFrame: bytes of the current frame still to come (a hint for early rejection).
    /// - Complexity: O(chunk.count).
    mutating func append(_ chunk: UnsafeRawBufferPointer, binary: Bool, final: Bool, remainingInFrame: Int = 0) -> Event {
        if !inMessage {
            inMessage = true
            isBinary = binary
            discarding = false
            buffer = []
        }
        remainingInCurrentFrame = max(0, remainingInFrame)
        var event = Event.none
        if !discarding {
            let expected = buffer.count + chunk.count + max(0, remainingInFrame)
            if expected > maxMessageSize {
                discarding = true
                buffer = []
                event = .exceededLimit
            } else {
                if buffer.capacity < expected {
                    buffer.reserveCapacity(expected)
                }
                buffer.append(contentsOf: chunk)
            }
        }
        if final {
            inMessage = false
            if !discarding {
                let bytes = buffer
                event = isBinary ? .message(.binary(bytes)) : .message(.text(bytes))
            }
            discarding = false
            buffer = []
        }
        return event
    }

    /// Convenience for tests and callers holding an array.
    mutating func append(_ chunk: [UInt8], binary: Bool, final: Bool, remainingInFrame: Int = 0) -> Event {
        return chunk.withUnsafeBytes { append($0, binary: binary, final: final, remainingInFrame: remainingInFrame) }
    }
}

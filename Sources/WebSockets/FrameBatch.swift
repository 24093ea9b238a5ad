import CLibWebsockets

/// Several small frames for one connection, framed here (RFC 6455, server to client: FIN set,
/// unmasked) into one buffer so that they go out in one `send()` instead of one each.
///
/// Why: libwebsockets frames one message per `lws_write`, and each is a system call. A viewer
/// often has several small frames ready at once (a tick's appends on four charts and a
/// selection); the server sends a batch on the socket itself (`WebSocketServer.sendDirect`) or,
/// where lws must carry the bytes (TLS), with `LWS_WRITE_HTTP`, which lws passes on as they are
/// (the WebSocket role sends HTTP writes raw); either way lws keeps what the kernel refuses.
/// Not for connections with permessage-deflate, whose frames lws must compress one by one.
///
/// - Note: service thread only (one batch per server, reused by every write).
final class FrameBatch {
    /// Frames up to this size are batched; a larger one goes out alone, zero-copy.
    static let maxFrameBytes = 4 * 1024
    /// Bytes of one batch at most, headers included.
    static let maxBatchBytes = 16 * 1024
    /// Frames in one batch at most.
    static let maxFrames = 32

    /// `lwsPre` bytes of headroom, then the batch.
    private let storage: UnsafeMutableRawPointer
    /// Bytes framed so far.
    private(set) var count = 0
    /// Frames framed so far.
    private(set) var frames = 0

    init() {
        storage = UnsafeMutableRawPointer.allocate(byteCount: lwsPre + FrameBatch.maxBatchBytes, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    /// Whether `frame` may start or join a batch at all.
    static func admits(_ frame: OutboundFrame) -> Bool { frame.count <= maxFrameBytes }

    /// Whether `frame` still fits in this batch.
    func fits(_ frame: OutboundFrame) -> Bool {
        frames < FrameBatch.maxFrames
            && count + ServerFrameHeader.bytes(for: frame.count) + frame.count <= FrameBatch.maxBatchBytes
    }

    /// Empties the batch.
    func reset() {
        count = 0
        frames = 0
    }

    /// Frames `frame` at the end of the batch. - Precondition: `fits(frame)`.
    /// - Complexity: O(frame.count), one copy.
    func append(_ frame: OutboundFrame) {
        precondition(fits(frame), "FrameBatch.append: the frame does not fit")
        let base = (storage + lwsPre + count).assumingMemoryBound(to: UInt8.self)
        let header = ServerFrameHeader.write(at: base, count: frame.count, isBinary: frame.isBinary)
        (base + header).update(from: frame.payload, count: frame.count)
        count += header + frame.count
        frames += 1
    }

    /// The framed batch: `count` bytes of whole frames.
    var start: UnsafeMutablePointer<UInt8> { (storage + lwsPre).assumingMemoryBound(to: UInt8.self) }
}

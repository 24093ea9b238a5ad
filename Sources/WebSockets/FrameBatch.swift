import CLibWebsockets

/// Several small frames for one connection, framed here (RFC 6455, server to client: FIN set,
/// unmasked) into one buffer so that they go out in one `lws_write`, one `send()`, instead of
/// one each.
///
/// Why: libwebsockets frames one message per `lws_write`, and each is a system call. A viewer
/// often has several small frames ready at once (a tick's appends on four charts and a
/// selection); a batch writes them with `LWS_WRITE_HTTP`, which lws passes to the socket as
/// they are (the WebSocket role sends HTTP writes raw), keeping its partial-write handling.
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

    /// The header a server frame of `count` payload bytes needs: 2 bytes up to 125, 4 up to 65,535.
    static func headerBytes(for count: Int) -> Int { count < 126 ? 2 : 4 }

    /// Whether `frame` may start or join a batch at all.
    static func admits(_ frame: OutboundFrame) -> Bool { frame.count <= maxFrameBytes }

    /// Whether `frame` still fits in this batch.
    func fits(_ frame: OutboundFrame) -> Bool {
        frames < FrameBatch.maxFrames
            && count + FrameBatch.headerBytes(for: frame.count) + frame.count <= FrameBatch.maxBatchBytes
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
        base[0] = 0x80 | (frame.isBinary ? 0x2 : 0x1)
        var header = 2
        if frame.count < 126 {
            base[1] = UInt8(frame.count)
        } else {
            base[1] = 126
            base[2] = UInt8(frame.count >> 8)
            base[3] = UInt8(frame.count & 0xFF)
            header = 4
        }
        (base + header).update(from: frame.payload, count: frame.count)
        count += header + frame.count
        frames += 1
    }

    /// Writes the batch to `wsi` as one raw write. - Returns: false when the write failed.
    func write(to wsi: OpaquePointer) -> Bool {
        let payload = (storage + lwsPre).assumingMemoryBound(to: UInt8.self)
        return cc_lws_write(wsi, payload, count, Int32(LWS_WRITE_HTTP.rawValue)) >= 0
    }
}

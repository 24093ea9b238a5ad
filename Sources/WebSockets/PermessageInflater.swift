import CLibWebsockets
import CZlib

/// Inflates one connection's permessage-deflate (RFC 7692) messages, piece by piece, so that the
/// message assembler's size limit bounds what is ever inflated.
///
/// Why not libwebsockets' own inflater: in 4.1 it aborts the whole process (`assert`) when the
/// last compressed bytes of a message are used up exactly as its 1 KiB output buffer fills with
/// more output pending — a few hundred crafted bytes take the server down. The server keeps
/// libwebsockets' extension for negotiation and for compressing what it sends, and takes the
/// received bytes compressed (see `permessageDeflateSendOnly`).
///
/// - Note: owned by one connection, service thread only.
final class PermessageInflater {
    /// The 4 bytes a sender strips from the end of each message (RFC 7692 §7.2.2).
    private static let trailer: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    private var stream = z_stream()
    private var output = [UInt8](repeating: 0, count: 16 * 1024)

    /// A raw-deflate inflater; nil when zlib cannot start one.
    init?() {
        guard cc_inflate_init_raw(&stream) == Z_OK else { return nil }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates `chunk` (and, at `endOfMessage`, the stripped trailer), handing the output to
    /// `sink` in pieces of at most 16 KiB; stops as soon as `sink` returns false.
    /// - Returns: false when the bytes are not valid deflate data.
    func inflate(_ chunk: UnsafeRawBufferPointer, endOfMessage: Bool, sink: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var going = true
        if chunk.count > 0 {
            guard run(chunk, sink: { going = sink($0); return going }) else { return false }
        }
        if going && endOfMessage {
            return PermessageInflater.trailer.withUnsafeBytes { run($0, sink: sink) }
        }
        return true
    }

    /// Runs inflate over `input` until it is used up (or `sink` says stop).
    private func run(_ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = UInt32(input.count)
        defer {
            stream.next_in = nil
            stream.avail_in = 0
        }
        let capacity = output.count
        return output.withUnsafeMutableBytes { buffer -> Bool in
            while true {
                stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                stream.avail_out = UInt32(capacity)
                let result = CZlib.inflate(&stream, Z_SYNC_FLUSH)
                let produced = capacity - Int(stream.avail_out)
                switch result {
                case Z_OK, Z_BUF_ERROR:
                    break
                case Z_STREAM_END:
                    // The sender ended the deflate stream (BFINAL): the next message starts a new one.
                    inflateReset(&stream)
                default:
                    return false
                }
                if produced > 0, !sink(UnsafeRawBufferPointer(start: buffer.baseAddress, count: produced)) { return true }
                // Done when the input is used up and the output was not full (nothing pending).
                if stream.avail_in == 0 && stream.avail_out > 0 { return true }
                if result == Z_BUF_ERROR && produced == 0 { return true }
            }
        }
    }
}

/// `PMDR_NOTHING_WE_SHOULD_DO` of libwebsockets 4.1's private `enum pmd_return`: what an
/// extension returns from `LWS_EXT_CB_PAYLOAD_RX` to pass the payload on untouched.
private let extensionPassesPayloadOn: Int32 = 5

/// The permessage-deflate extension callback the server registers: libwebsockets' own for
/// negotiation and for deflating what the server sends, but received payloads pass through
/// compressed (the server inflates them with `PermessageInflater`).
let permessageDeflateSendOnly: @convention(c) (OpaquePointer?, UnsafePointer<lws_extension>?, OpaquePointer?,
                                               lws_extension_callback_reasons, UnsafeMutableRawPointer?,
                                               UnsafeMutableRawPointer?, Int) -> Int32 = { context, ext, wsi, reason, user, input, length in
    if reason == LWS_EXT_CB_PAYLOAD_RX { return extensionPassesPayloadOn }
    return lws_extension_callback_pm_deflate(context, ext, wsi, reason, user, input, length)
}

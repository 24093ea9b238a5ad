import CZlib

/// gzip bodies (`Content-Encoding: gzip`, Telegraf's default) through zlib.
///
/// Inflating never allocates beyond its limit: output is produced 64 KiB at a time and the
/// inflate stops, with `too_large`, as soon as it would pass the limit — a small body that
/// expands to gigabytes (a gzip bomb) costs at most the limit in memory and the time to inflate
/// that much.
public enum Gzip {
    /// Size of each inflate step's output window.
    static let chunk = 64 * 1024

    /// The inflated body: every gzip member in turn (RFC 1952 allows several back to back, as
    /// `cat a.gz b.gz` makes), each member's CRC-32 and length checked by zlib.
    ///
    /// - Throws: `too_large` past `limit` bytes of output; `bad_request` for input that is not
    ///   gzip, is corrupt or truncated, or has bytes after the last member that do not start one.
    /// - Complexity: O(output), memory at most `limit` plus one 64 KiB window.
    public static func inflate(_ body: [UInt8], limit: Int = IngestLimits.standard.maxInflatedBytes) throws -> [UInt8] {
        guard !body.isEmpty else { throw IngestError.badRequest("gzip: the body is empty") }
        var stream = z_stream()
        guard cc_inflate_init_gzip(&stream) == Z_OK else { throw IngestError.badRequest("gzip: cannot start inflating") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var window = [UInt8](repeating: 0, count: chunk)
        try body.withUnsafeBufferPointer { input in
            guard let base = input.baseAddress else { return }
            stream.next_in = UnsafeMutablePointer(mutating: base)
            stream.avail_in = UInt32(clamping: input.count)
            while true {
                let status: Int32 = window.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk - Int(stream.avail_out)
                if produced > 0 {
                    guard output.count + produced <= limit else {
                        throw IngestError.tooLarge("the gzip body inflates to more than \(describe(limit))")
                    }
                    if output.count + produced > output.capacity {
                        // Grow by doubling, but never reserve past the limit.
                        output.reserveCapacity(Swift.min(limit, Swift.max(output.capacity * 2, output.count + produced)))
                    }
                    output.append(contentsOf: window[0..<produced])
                }
                switch status {
                case Z_OK:
                    // Feed the rest when avail_in was clamped (bodies over 4 GiB).
                    if stream.avail_in == 0 {
                        let consumed = input.count - remaining(stream, base, input.count)
                        if consumed < input.count { refill(&stream, base, consumed, input.count) }
                    }
                    continue
                case Z_STREAM_END:
                    let left = remaining(stream, base, input.count)
                    if left == 0 { return }
                    // Another member must follow.
                    guard inflateReset(&stream) == Z_OK else { throw IngestError.badRequest("gzip: cannot continue") }
                    refill(&stream, base, input.count - left, input.count)
                case Z_BUF_ERROR:
                    if stream.avail_in == 0 && remaining(stream, base, input.count) == 0 {
                        throw IngestError.badRequest("gzip: the body ends inside a compressed stream")
                    }
                    continue
                case Z_NEED_DICT:
                    throw IngestError.badRequest("gzip: the stream needs a preset dictionary")
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "corrupt data"
                    throw IngestError.badRequest("gzip: \(reason)")
                }
            }
        }
        return output
    }

    /// Bytes of the input not yet consumed.
    private static func remaining(_ stream: z_stream, _ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
        guard let next = stream.next_in else { return 0 }
        return count - (UnsafePointer(next) - base)
    }

    private static func refill(_ stream: inout z_stream, _ base: UnsafePointer<UInt8>, _ offset: Int, _ count: Int) {
        stream.next_in = UnsafeMutablePointer(mutating: base + offset)
        stream.avail_in = UInt32(clamping: count - offset)
    }

    static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(IngestLimits.format(bytes)) bytes"
    }
}

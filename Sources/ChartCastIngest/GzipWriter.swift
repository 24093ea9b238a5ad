import CZlib

/// Writes a gzip stream (one member) with zlib's deflate, chunk by chunk.
///
/// The server only inflates; this is how tests and the benchmark make gzip bodies (a test can
/// stream a gigabyte of zeros through it to build a bomb without holding the gigabyte).
public final class GzipWriter {
    private var stream = z_stream()
    private var output: [UInt8] = []
    private var finished = false

    /// Starts a stream at `level` (0 = stored … 9 = smallest); `nil` when zlib cannot start.
    public init?(level: Int32 = 6) {
        guard (0...9).contains(level), cc_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `bytes` onto the stream; ignored after `finish()`.
    public func write(_ bytes: [UInt8]) {
        guard !finished, !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            drain(flush: Z_NO_FLUSH)
        }
    }

    /// Ends the stream and returns every byte written (header, deflate data, CRC-32, length).
    public func finish() -> [UInt8] {
        if !finished {
            stream.next_in = nil
            stream.avail_in = 0
            drain(flush: Z_FINISH)
            finished = true
        }
        return output
    }

    /// Runs deflate until it has taken all input (and, finishing, written the trailer).
    private func drain(flush: Int32) {
        var window = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let status: Int32 = window.withUnsafeMutableBufferPointer { out in
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                return deflate(&stream, flush)
            }
            output.append(contentsOf: window[0..<(window.count - Int(stream.avail_out))])
            // Finishing: Z_OK means more output is pending. Otherwise: done once deflate left
            // room in the window (it has taken all input). Anything else ends the loop.
            if flush == Z_FINISH ? status != Z_OK : (status != Z_OK || stream.avail_out != 0) { return }
        }
    }
}

extension Gzip {
    /// `bytes` as one gzip member.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        guard let writer = GzipWriter(level: level) else { return [] }
        writer.write(bytes)
        return writer.finish()
    }
}

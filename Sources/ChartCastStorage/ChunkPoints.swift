/// The points of one chunk, or of one series in one write: x, y and, for linear and category
/// charts, the write time of each point (epoch ms; their retention goes by it).
///
/// Stored as one BLOB (see `Schema`): the n x values, then the n y values, then (when tracked)
/// the n write times, each an IEEE 754 double in little-endian byte order — 16 or 24 bytes a point.
struct ChunkPoints {
    var xs: [Double] = []
    var ys: [Double] = []
    /// Empty when times are not tracked (time charts).
    var times: [Double] = []
    /// Whether each point carries its write time.
    let tracksTimes: Bool

    init(tracksTimes: Bool) {
        self.tracksTimes = tracksTimes
    }

    var count: Int { xs.count }
    var isEmpty: Bool { xs.isEmpty }

    mutating func reserveCapacity(_ n: Int) {
        xs.reserveCapacity(n)
        ys.reserveCapacity(n)
        if tracksTimes { times.reserveCapacity(n) }
    }

    /// Appends a point (the caller keeps x order where it matters).
    @inline(__always)
    mutating func append(x: Double, y: Double, time: Double) {
        xs.append(x)
        ys.append(y)
        if tracksTimes { times.append(time) }
    }

    /// Appends point `i` of `other`.
    @inline(__always)
    mutating func append(_ other: ChunkPoints, at i: Int) {
        append(x: other.xs[i], y: other.ys[i], time: other.tracksTimes ? other.times[i] : 0)
    }

    /// Points `range`, as their own value.
    func slice(_ range: Range<Int>) -> ChunkPoints {
        var out = ChunkPoints(tracksTimes: tracksTimes)
        out.xs = Array(xs[range])
        out.ys = Array(ys[range])
        if tracksTimes { out.times = Array(times[range]) }
        return out
    }

    /// Bytes per point in the blob.
    var stride: Int { tracksTimes ? 24 : 16 }

    /// The blob of points `range`.
    /// - Complexity: O(range.count).
    func encoded(_ range: Range<Int>) -> [UInt8] {
        let n = range.count
        let columns = tracksTimes ? 3 : 2
        return [UInt8](unsafeUninitializedCapacity: n * 8 * columns) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            for (k, i) in range.enumerated() {
                raw.storeBytes(of: xs[i].bitPattern.littleEndian, toByteOffset: k * 8, as: UInt64.self)
                raw.storeBytes(of: ys[i].bitPattern.littleEndian, toByteOffset: (n + k) * 8, as: UInt64.self)
                if tracksTimes {
                    raw.storeBytes(of: times[i].bitPattern.littleEndian, toByteOffset: (2 * n + k) * 8, as: UInt64.self)
                }
            }
            initialized = n * 8 * columns
        }
    }

    /// Decodes a blob of `count` points; nil when its length fits neither layout.
    /// - Complexity: O(count).
    static func decode(_ blob: UnsafeRawBufferPointer, count: Int) -> ChunkPoints? {
        guard count > 0, blob.count == count * 16 || blob.count == count * 24 else { return nil }
        var points = ChunkPoints(tracksTimes: blob.count == count * 24)
        points.xs = column(blob, 0, count)
        points.ys = column(blob, count, count)
        if points.tracksTimes { points.times = column(blob, 2 * count, count) }
        return points
    }

    private static func column(_ blob: UnsafeRawBufferPointer, _ start: Int, _ count: Int) -> [Double] {
        [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
            for k in 0..<count {
                let bits = UInt64(littleEndian: blob.loadUnaligned(fromByteOffset: (start + k) * 8, as: UInt64.self))
                buffer[k] = Double(bitPattern: bits)
            }
            initialized = count
        }
    }

    /// Puts the points in ascending x with one point per x: for equal x the one appended last
    /// wins (a later write replaces an earlier value).
    /// - Complexity: O(n) when already ascending, else O(n log n).
    mutating func normalize() {
        var ascending = true
        for i in xs.indices.dropFirst() where !(xs[i - 1] < xs[i]) { ascending = false; break }
        if ascending { return }
        // Stable by construction: equal x sort by arrival, and the last of each run is kept.
        let order = xs.indices.sorted { a, b in xs[a] < xs[b] || (xs[a] == xs[b] && a < b) }
        var out = ChunkPoints(tracksTimes: tracksTimes)
        out.reserveCapacity(order.count)
        for (k, i) in order.enumerated() {
            if k + 1 < order.count && xs[order[k + 1]] == xs[i] { continue }
            out.append(self, at: i)
        }
        self = out
    }

    /// `old` and `new` (both normalized) in one ascending run; at an x both have, `new` wins.
    /// - Complexity: O(old.count + new.count).
    static func merge(_ old: ChunkPoints, _ new: ChunkPoints) -> ChunkPoints {
        var out = ChunkPoints(tracksTimes: new.tracksTimes)
        out.reserveCapacity(old.count + new.count)
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && old.xs[i] < new.xs[j]) {
                out.append(old, at: i); i += 1
            } else {
                if i < old.count && old.xs[i] == new.xs[j] { i += 1 }
                out.append(new, at: j); j += 1
            }
        }
        return out
    }

    /// The summary columns of points `range` (non-empty, ascending): ends, extremes (the first
    /// point holding each), write times. `writeTime` stands in for untracked times.
    func summary(_ range: Range<Int>, writeTime: Double) -> ChunkSummary {
        let first = range.lowerBound, last = range.upperBound - 1
        var s = ChunkSummary(x0: xs[first], x1: xs[last], count: range.count, y0: ys[first], y1: ys[last],
                             xMin: xs[first], yMin: ys[first], xMax: xs[first], yMax: ys[first],
                             t0: writeTime, t1: writeTime)
        for i in range {
            if ys[i] < s.yMin { s.yMin = ys[i]; s.xMin = xs[i] }
            if ys[i] > s.yMax { s.yMax = ys[i]; s.xMax = xs[i] }
        }
        if tracksTimes {
            s.t0 = times[range].min() ?? writeTime
            s.t1 = times[range].max() ?? writeTime
        }
        return s
    }
}

/// A chunk's columns in the `chunk` table: what a downsampling read uses to summarise the chunk
/// without decoding it, and what retention uses to drop it whole.
struct ChunkSummary: Equatable {
    var x0: Double, x1: Double
    var count: Int
    /// y of the first and the last point.
    var y0: Double, y1: Double
    /// The smallest y and the x of the first point holding it; the same for the largest.
    var xMin: Double, yMin: Double
    var xMax: Double, yMax: Double
    /// Oldest and newest write time of the points (time charts: of the writes that made it).
    var t0: Double, t1: Double
}

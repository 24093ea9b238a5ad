/// Count, sum, min and max of a set of values; the monoid a segment tree combines.
struct Aggregate: Equatable {
    var count: Int
    var sum: Double
    var min: Double
    var max: Double

    /// The aggregate of nothing (the identity of `merging`).
    static let empty = Aggregate(count: 0, sum: 0, min: .infinity, max: -.infinity)

    /// The aggregate of one value.
    init(_ value: Double) {
        self.count = 1
        self.sum = value
        self.min = value
        self.max = value
    }

    init(count: Int, sum: Double, min: Double, max: Double) {
        self.count = count
        self.sum = sum
        self.min = min
        self.max = max
    }

    /// Adds one value in place.
    mutating func add(_ value: Double) {
        count += 1
        sum += value
        if value < min { min = value }
        if value > max { max = value }
    }

    /// Both aggregates combined.
    func merging(_ other: Aggregate) -> Aggregate {
        Aggregate(count: count + other.count, sum: sum + other.sum,
                  min: Swift.min(min, other.min), max: Swift.max(max, other.max))
    }
}

/// A segment tree of `Aggregate`s over a fixed-size slot array, one leaf per block of
/// `blockSize` slots, so the tree costs `2 · slots / blockSize` nodes instead of `2 · slots`.
///
/// Empty slots are `NaN` and count as nothing. The caller owns the slot array and passes it in.
struct BlockSegmentTree {
    /// Slots per leaf; a power of two.
    static let blockSize = 16
    static let blockShift = 4

    /// Number of leaves (a power of two).
    private(set) var leaves: Int
    /// Nodes in heap order: 1 is the root, `leaves + b` is block `b`.
    private var nodes: [Aggregate]

    /// A tree for `slotCount` slots (a multiple of `blockSize`, power of two), all empty.
    init(slotCount: Int) {
        leaves = Swift.max(1, slotCount >> BlockSegmentTree.blockShift)
        nodes = Array(repeating: .empty, count: 2 * leaves)
    }

    /// Recomputes every node from `slots`.
    ///
    /// - Complexity: O(slots).
    mutating func rebuild(from slots: [Double]) {
        for b in 0..<leaves {
            nodes[leaves + b] = BlockSegmentTree.scan(slots, b << BlockSegmentTree.blockShift,
                                                       (b + 1) << BlockSegmentTree.blockShift)
        }
        var i = leaves - 1
        while i >= 1 {
            nodes[i] = nodes[2 * i].merging(nodes[2 * i + 1])
            i -= 1
        }
    }

    /// Refreshes the path from the block holding `slot` to the root after `slots[slot]` changed.
    ///
    /// - Complexity: O(blockSize + log(slots / blockSize)).
    mutating func update(slot: Int, in slots: [Double]) {
        let block = slot >> BlockSegmentTree.blockShift
        var i = leaves + block
        nodes[i] = BlockSegmentTree.scan(slots, block << BlockSegmentTree.blockShift,
                                          (block + 1) << BlockSegmentTree.blockShift)
        i >>= 1
        while i >= 1 {
            nodes[i] = nodes[2 * i].merging(nodes[2 * i + 1])
            i >>= 1
        }
    }

    /// Refreshes the given blocks and every ancestor of them once, after many slots changed
    /// (`blocks` ascending, each at most once).
    ///
    /// - Complexity: O(blocks · blockSize) for the leaves plus each touched ancestor once: for a
    ///   run of k consecutive blocks about 2k + log(leaves) nodes.
    mutating func update(blocks: [Int], in slots: [Double]) {
        guard !blocks.isEmpty else { return }
        var level: [Int] = []
        level.reserveCapacity(blocks.count)
        for block in blocks {
            let i = leaves + block
            nodes[i] = BlockSegmentTree.scan(slots, block << BlockSegmentTree.blockShift,
                                              (block + 1) << BlockSegmentTree.blockShift)
            level.append(i)
        }
        while level.first.map({ $0 > 1 }) ?? false {
            var parents: [Int] = []
            parents.reserveCapacity(level.count / 2 + 1)
            for i in level {
                let parent = i >> 1
                if parents.last != parent { parents.append(parent) }
            }
            for i in parents { nodes[i] = nodes[2 * i].merging(nodes[2 * i + 1]) }
            level = parents
        }
    }

    /// The aggregate of every slot.
    var total: Aggregate { nodes[1] }

    /// The aggregate of slots `lo..<hi`.
    ///
    /// - Complexity: O(blockSize + log(slots / blockSize)).
    func query(_ lo: Int, _ hi: Int, in slots: [Double]) -> Aggregate {
        guard lo < hi else { return .empty }
        let shift = BlockSegmentTree.blockShift
        let firstBlock = lo >> shift, lastBlock = (hi - 1) >> shift
        if firstBlock == lastBlock { return BlockSegmentTree.scan(slots, lo, hi) }
        var result = BlockSegmentTree.scan(slots, lo, (firstBlock + 1) << shift)
        result = result.merging(BlockSegmentTree.scan(slots, lastBlock << shift, hi))
        // Whole blocks firstBlock+1 ..< lastBlock, iterative bottom-up.
        var l = leaves + firstBlock + 1, r = leaves + lastBlock
        while l < r {
            if l & 1 == 1 { result = result.merging(nodes[l]); l += 1 }
            if r & 1 == 1 { r -= 1; result = result.merging(nodes[r]) }
            l >>= 1
            r >>= 1
        }
        return result
    }

    /// Linear aggregate of `slots[lo..<hi]`, skipping `NaN` (empty) slots.
    @inline(__always)
    static func scan(_ slots: [Double], _ lo: Int, _ hi: Int) -> Aggregate {
        var result = Aggregate.empty
        var i = lo
        while i < hi {
            let v = slots[i]
            if !v.isNaN { result.add(v) }
            i += 1
        }
        return result
    }
}

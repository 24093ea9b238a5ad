import WebSockets

/// The most recent `append` frames of one chart, numbered consecutively, like a Kafka partition.
///
/// Each viewer keeps only a cursor (the number of the next append it needs); a viewer whose cursor
/// has fallen off the back of the log is sent a fresh snapshot instead of a backlog.
/// - Note: service thread only.
struct AppendLog {
    /// One logged append: its bytes, or what makes them until a viewer first needs them (a big
    /// write that every viewer takes as a downsampled snapshot is never encoded).
    private enum Entry {
        case encoded(OutboundFrame)
        case deferred(() -> OutboundFrame)
    }

    private var frames: [Entry?]
    /// Per frame: the most points it carries for any one series (a viewer whose plot cannot
    /// show that many is sent a downsampled snapshot instead).
    private var sizes: [Int]
    /// Per frame: the y domain it carries (nil when the domain did not move).
    private var yDomains: [ClosedRange<Double>?]
    /// Number the next appended frame will get.
    private(set) var nextNumber = 0

    init(capacity: Int) {
        frames = Array(repeating: nil, count: max(1, capacity))
        sizes = Array(repeating: 0, count: max(1, capacity))
        yDomains = Array(repeating: nil, count: max(1, capacity))
    }

    var capacity: Int { frames.count }

    /// Number of the oldest frame still held.
    var oldestNumber: Int { max(0, nextNumber - frames.count) }

    /// Adds a frame carrying at most `pointsPerSeries` points of any one series and the y
    /// domain `yDomain` (nil when it did not move), dropping the oldest when full.
    /// - Complexity: O(1).
    mutating func append(_ frame: OutboundFrame, pointsPerSeries: Int, yDomain: ClosedRange<Double>?) {
        add(.encoded(frame), pointsPerSeries: pointsPerSeries, yDomain: yDomain)
    }

    /// Adds an append whose bytes `encode` makes the first time a viewer needs them (`frame`).
    /// - Complexity: O(1).
    mutating func append(deferred encode: @escaping () -> OutboundFrame, pointsPerSeries: Int, yDomain: ClosedRange<Double>?) {
        add(.deferred(encode), pointsPerSeries: pointsPerSeries, yDomain: yDomain)
    }

    private mutating func add(_ entry: Entry, pointsPerSeries: Int, yDomain: ClosedRange<Double>?) {
        frames[nextNumber % frames.count] = entry
        sizes[nextNumber % frames.count] = pointsPerSeries
        yDomains[nextNumber % frames.count] = yDomain
        nextNumber += 1
    }

    /// Drops every frame and moves the numbering past them, so that every viewer's cursor is
    /// behind the log and it is sent a fresh snapshot (a write too large to send as an append).
    /// - Complexity: O(capacity).
    mutating func skipAll() {
        for i in frames.indices { frames[i] = nil }
        // One past a full ring: even a cursor that was up to date is now older than the oldest.
        nextNumber += frames.count + 1
    }

    /// The most points of one series that frame `number` carries (0 when it is not held).
    /// - Complexity: O(1).
    func pointsPerSeries(_ number: Int) -> Int {
        guard number >= oldestNumber, number < nextNumber else { return 0 }
        return sizes[number % frames.count]
    }

    /// The y domain frame `number` carries, nil when it carries none or is not held.
    /// - Complexity: O(1).
    func yDomain(_ number: Int) -> ClosedRange<Double>? {
        guard number >= oldestNumber, number < nextNumber else { return nil }
        return yDomains[number % frames.count]
    }

    /// Whether frame `number` is held (not dropped, and already logged).
    /// - Complexity: O(1).
    func holds(_ number: Int) -> Bool {
        number >= oldestNumber && number < nextNumber && frames[number % frames.count] != nil
    }

    /// The frame numbered `number`, encoded now if it was deferred (once: every later caller gets
    /// the same bytes), or nil when it was dropped or does not exist yet.
    /// - Complexity: O(1), or the encoding of a deferred append the first time.
    mutating func frame(_ number: Int) -> OutboundFrame? {
        guard number >= oldestNumber, number < nextNumber, let entry = frames[number % frames.count] else { return nil }
        switch entry {
        case .encoded(let frame):
            return frame
        case .deferred(let encode):
            let frame = encode()
            frames[number % frames.count] = .encoded(frame)
            return frame
        }
    }
}

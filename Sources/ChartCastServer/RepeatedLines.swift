/// Which log lines of a kind get written: at most one per `interval` for each key, the lines in
/// between counted and reported with the next one written ("(N similar lines suppressed)").
///
/// A flood (a client renaming itself in a loop, thousands of refused handshakes, a library
/// repeating an error) then costs one line a second per kind, not one per event. At most
/// `maxKeys` keys are remembered; when full, keys quiet for longer than `interval` are dropped.
/// - Note: not thread-safe; `Logger` holds it under its lock.
struct RepeatedLines {
    let interval: Double
    let maxKeys: Int
    private var lastWritten: [String: (at: Double, suppressed: Int)] = [:]

    init(interval: Double = 1, maxKeys: Int = 1_024) {
        self.interval = interval
        self.maxKeys = maxKeys
    }

    /// Whether a line of kind `key` at time `now` (seconds) is written, and if so how many of
    /// its kind were suppressed since the last one written; nil: suppress it.
    /// - Complexity: O(1) amortised (O(keys) when the table is full).
    mutating func admit(_ key: String, now: Double) -> Int? {
        if let last = lastWritten[key], now - last.at < interval {
            lastWritten[key] = (last.at, last.suppressed + 1)
            return nil
        }
        let suppressed = lastWritten[key]?.suppressed ?? 0
        if lastWritten[key] == nil, lastWritten.count >= maxKeys {
            lastWritten = lastWritten.filter { now - $0.value.at < interval }
            if lastWritten.count >= maxKeys { lastWritten.removeAll() }
        }
        lastWritten[key] = (now, 0)
        return suppressed
    }

    /// The suffix a written line gets for `suppressed` lines left out before it.
    static func suffix(_ suppressed: Int) -> String {
        suppressed == 0 ? "" : " (\(suppressed) similar line\(suppressed == 1 ? "" : "s") suppressed)"
    }
}

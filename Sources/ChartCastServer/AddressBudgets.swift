import ChartCastProtocol

/// One message budget per peer address, shared by all of that address's connections, so ten
/// connections from one client get one budget, not ten.
///
/// It covers the messages that cost others something or cost a snapshot — `pointer` and `key`
/// (they change the shared selection that every viewer is sent) and `view` (a fresh snapshot,
/// maybe a history read). `hello` (its effect is batched into a few viewer lists a second) and
/// `viewport` (personal; every viewer sends one per chart when it arrives, so a crowd arriving
/// from one load-testing host would trip a shared budget) are left to the per-connection limit.
/// The default is four times the per-connection rate and burst (`--max-rate-per-address`; 0
/// turns it off). Loopback is not exempt.
/// - Note: service thread only.
final class AddressBudgets {
    /// Messages a second per address; 0 means no per-address budget.
    let rate: Double
    let burst: Double
    private var entries: [String: (limiter: RateLimiter, connections: Int)] = [:]

    /// The default per-address rate: four connections' worth.
    static let defaultRate = 4 * ProtocolLimits.v1.messagesPerSecond

    init(rate: Double) {
        self.rate = rate
        burst = 2 * rate
    }

    /// A connection from `address` opened: the shared limiter it draws on, nil when off.
    /// - Complexity: O(1) amortised.
    func join(_ address: String, now: UInt64) -> RateLimiter? {
        guard rate > 0 else { return nil }
        if var entry = entries[address] {
            entry.connections += 1
            entries[address] = entry
            return entry.limiter
        }
        let limiter = RateLimiter(rate: rate, burst: burst, now: now)
        entries[address] = (limiter, 1)
        return limiter
    }

    /// A connection from `address` closed; the address's budget goes with its last connection.
    func leave(_ address: String) {
        guard var entry = entries[address] else { return }
        entry.connections -= 1
        entries[address] = entry.connections > 0 ? entry : nil
    }

    /// Addresses with a budget now (tests, metrics).
    var count: Int { entries.count }

    /// Whether `message` draws on its address's budget.
    static func covers(_ message: ClientMessage) -> Bool {
        switch message {
        case .pointer, .key, .view: return true
        default: return false
        }
    }
}

import ChartCastProtocol
import ChartEngine

extension Viewport {
    /// The plot frame every headless viewer reports unless told otherwise.
    public static let loadTestStandard = Viewport(x: 48, y: 12, width: 620, height: 280)
}

/// The endless pointer sequence of one driver: each `next()` is one event, chosen so that nearly
/// every event changes the shared selection (a new hover category, the next scrub mark, a wider
/// range, a pin toggle) and therefore produces a fan-out the viewers can time.
///
/// Drivers spread over the charts that accept their gesture (`driver % count`), so several
/// drivers rarely contend for one chart's single drag owner. Charts are the `welcome`'s specs.
/// - Note: a value type owned by one driver connection (client service thread).
public struct PointerScript {
    public let pattern: LoadPattern
    public let plot: Viewport
    private let driver: Int
    private var charts: [ChartSpec]
    private var queue: [ClientMessage.PointerInput] = []
    private var gestureIndex = 0
    /// Charts on which the last gesture left state that `finish()` should clear.
    private var touched: [String] = []
    private var pressedChart: String?
    private var movedSincePress = false

    public init(pattern: LoadPattern, charts: [ChartSpec], driver: Int, plot: Viewport = .loadTestStandard) {
        self.pattern = pattern
        self.charts = charts
        self.driver = driver
        self.plot = plot
    }

    /// Whether the driver holds a press (mid-drag, or about to tap).
    public var isPressed: Bool { pressedChart != nil }
    /// Whether the driver holds a press it has moved since: a drag (or a press still within
    /// the slop) in progress.
    public var isDragging: Bool { pressedChart != nil && movedSincePress }

    /// The next pointer event, or nil when no chart accepts the pattern's gestures.
    /// - Complexity: amortised O(1); a gesture of up to ~20 events is planned at once.
    public mutating func next() -> ClientMessage.PointerInput? {
        // A mixed cycle skips gestures no chart accepts.
        for _ in 0..<4 where queue.isEmpty { planGesture() }
        guard !queue.isEmpty else { return nil }
        let step = queue.removeFirst()
        switch step.phase {
        case .down:
            pressedChart = step.chart
            movedSincePress = false
        case .up: pressedChart = nil
        case .leave: touched.removeAll { $0 == step.chart }
        case .move: movedSincePress = pressedChart != nil
        }
        if !touched.contains(step.chart) && step.phase != .leave { touched.append(step.chart) }
        return step
    }

    /// Events that leave no driver-owned state behind: release a press, then leave every chart
    /// touched. Sent when the drivers stop so the final state is the same for every run.
    public mutating func finish() -> [ClientMessage.PointerInput] {
        var steps: [ClientMessage.PointerInput] = []
        let y = plot.y + plot.height / 2
        if let chart = pressedChart { steps.append(ClientMessage.PointerInput(chart: chart, phase: .up, x: plot.x + 1, y: y)) }
        for chart in touched { steps.append(ClientMessage.PointerInput(chart: chart, phase: .leave, x: 0, y: 0)) }
        pressedChart = nil
        touched = []
        queue = []
        return steps
    }

    private func pick(_ accepts: (ChartSpec) -> Bool, salt: Int = 0) -> ChartSpec? {
        let eligible = charts.filter(accepts)
        guard !eligible.isEmpty else { return nil }
        return eligible[(driver + salt) % eligible.count]
    }

    /// Category charts: one step per category; time and linear charts: 12 steps.
    private static func steps(_ chart: ChartSpec) -> Int { chart.categories.isEmpty ? 12 : chart.categories.count }

    /// The canvas x of the centre of step `i` when the plot is split into `n` steps.
    private func xAt(step i: Int, of n: Int) -> Double { plot.x + (Double(i) + 0.5) * plot.width / Double(n) }

    private mutating func planGesture() {
        let kind: LoadPattern
        if pattern == .mixed {
            let cycle: [LoadPattern] = [.hover, .scrub, .range, .mixed]   // .mixed here = a pin tap
            kind = cycle[gestureIndex % cycle.count]
        } else {
            kind = pattern
        }
        // Mixed drivers move to the next eligible chart every cycle; single-pattern drivers stay
        // on one chart each.
        let salt = pattern == .mixed ? gestureIndex / 4 : 0
        gestureIndex += 1
        let y = plot.y + plot.height * 0.4
        switch kind {
        case .hover:
            guard let chart = pick({ $0.interactions.hover }, salt: salt) else { return }
            // One move per category: every move lands on a new category.
            let n = Self.steps(chart)
            for k in 0..<n { queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .move, x: xAt(step: (k + driver) % n, of: n), y: y)) }
            if pattern == .mixed { queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .leave, x: 0, y: 0)) }
        case .scrub:
            guard let chart = pick({ $0.interactions.drag == .scrub }, salt: salt) else { return }
            let n = Self.steps(chart)
            queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .down, x: xAt(step: 0, of: n), y: y))
            for k in 1..<max(n, 2) { queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .move, x: xAt(step: k, of: n), y: y)) }
            queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .up, x: xAt(step: n - 1, of: n), y: y))
        case .range:
            guard let chart = pick({ $0.interactions.drag == .range }, salt: salt) else { return }
            let steps = 16
            queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .down, x: xAt(step: 1, of: steps + 4), y: y))
            for k in 0..<steps { queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .move, x: xAt(step: k + 3, of: steps + 4), y: y)) }
            queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .up, x: xAt(step: steps + 2, of: steps + 4), y: y))
        case .mixed:
            guard let chart = pick({ $0.interactions.tap }, salt: salt) else { return }
            // Tap a point, then tap it again: pin, then unpin.
            let x = xAt(step: (gestureIndex + driver) % 10, of: 10)
            for _ in 0..<2 {
                queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .down, x: x, y: y))
                queue.append(ClientMessage.PointerInput(chart: chart.id, phase: .up, x: x, y: y))
            }
        }
    }
}

import ChartCastDemo
import ChartEngine

/// The demo dashboard's stores (the server's own definition, `ChartCastDemo`) and pixel helpers.
enum DemoCharts {
    static let day = DemoDashboard.dayMs
    static let may1 = UTCDate(year: 2022, month: 5, day: 1).epochMilliseconds
    static let weekdays = DemoDashboard.weekdays

    /// A 620 × 280 plot frame at (48, 12), the brief's example viewport.
    static let viewport = Viewport(x: 48, y: 12, width: 620, height: 280, rtl: false)

    private static func demo(_ id: String, window: Int = 60) -> ChartStore {
        guard let store = DemoDashboard.store(id, window: window) else { fatalError("no demo chart \(id)") }
        return store
    }

    static func workouts() -> ChartStore { demo("workouts") }
    static func expenses() -> ChartStore { demo("expenses") }
    static func sales() -> ChartStore { demo("sales") }
    /// 15 bars every two days from May 1st, window 60.
    static func intake() -> ChartStore { demo("intake") }
    /// 30 days from May 1st with a window of 30, so that the next append evicts.
    static func temperature() -> ChartStore { demo("temperature", window: 30) }

    /// The canvas x at the centre of category `i` of `n` in `viewport` (left-to-right).
    static func centreX(_ i: Int, of n: Int, in viewport: Viewport = viewport) -> Double {
        viewport.x + (Double(i) + 0.5) * viewport.width / Double(n)
    }

    /// The canvas x of time `t` in `store`'s domain.
    static func pixel(_ t: Double, in store: ChartStore, viewport: Viewport = viewport) -> Double {
        let (d0, d1) = store.xDomain
        return viewport.x + (t - d0) / (d1 - d0) * viewport.width
    }
}

extension SelectionEngine {
    /// A press at `from`, moves through `path`, no release: a drag in progress.
    @discardableResult
    func drag(_ viewer: String, from: Double, through path: [Double], y: Double = 100,
              viewport: Viewport = DemoCharts.viewport) -> Bool {
        var changed = pointer(viewer: viewer, phase: .down, x: from, y: y, viewport: viewport)
        for x in path { changed = pointer(viewer: viewer, phase: .move, x: x, y: y, viewport: viewport) || changed }
        return changed
    }

    /// A press and release at the same point.
    @discardableResult
    func tap(_ viewer: String, x: Double, y: Double = 100, viewport: Viewport = DemoCharts.viewport) -> Bool {
        let down = pointer(viewer: viewer, phase: .down, x: x, y: y, viewport: viewport)
        return pointer(viewer: viewer, phase: .up, x: x, y: y, viewport: viewport) || down
    }

    @discardableResult
    func move(_ viewer: String, x: Double, y: Double = 100, viewport: Viewport = DemoCharts.viewport) -> Bool {
        pointer(viewer: viewer, phase: .move, x: x, y: y, viewport: viewport)
    }
}

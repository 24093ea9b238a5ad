import ChartEngine

/// The demo dashboard's charts and data, built the way the server builds them, for tests.
enum DemoCharts {
    static let day = 86_400_000.0
    static let may1 = UTCDate(year: 2022, month: 5, day: 1).epochMilliseconds
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let shortMonths = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                         "September", "October", "November", "December"]

    /// A 620 × 280 plot frame at (48, 12), the brief's example viewport.
    static let viewport = Viewport(x: 48, y: 12, width: 620, height: 280, rtl: false)

    static func workouts() -> ChartStore {
        let store = ChartStore(spec: ChartSpec(
            id: "workouts", title: "Walking minutes", mark: .bar, xKind: .category,
            xLabel: "Day", yLabel: "Minutes", series: ["Minutes"], categories: weekdays,
            interactions: Interactions(hover: false, drag: .scrub, tap: false)))
        for (i, v) in [23.0, 45, 76, 21, 15, 35, 10].enumerated() { store.setValue(v, series: 0, category: i) }
        return store
    }

    static func expenses() -> ChartStore {
        let store = ChartStore(spec: ChartSpec(
            id: "expenses", title: "Monthly expenses", mark: .bar, xKind: .category,
            series: ["Expense"], categories: shortMonths,
            interactions: Interactions(hover: false, drag: .scrub, tap: false)))
        let values: [Double] = [235, 500, 400, 350, 625, 375, 475, 600, 321, 100, 674, 456]
        for (i, v) in values.enumerated() { store.setValue(v, series: 0, category: i) }
        return store
    }

    static let iceCream: [Double] = [1000, 1200, 900, 950, 800, 700, 730, 600, 620, 800, 950, 1100]
    static let coffee: [Double] = [1800, 2000, 1900, 1950, 2500, 2800, 2730, 2600, 1620, 1800, 1950, 2100]
    static let muffins: [Double] = [900, 700, 800, 950, 900, 1000, 1200, 1100, 1000, 800, 950, 900]

    static func sales() -> ChartStore {
        let store = ChartStore(spec: ChartSpec(
            id: "sales", title: "Product sales in 2022", mark: .bar, xKind: .category,
            xLabel: "Month", yLabel: "Sales", series: ["Ice Cream", "Coffee", "Muffins"], categories: months,
            interactions: Interactions(hover: true, drag: .none, tap: false)))
        for i in 0..<12 {
            store.setValue(iceCream[i], series: 0, category: i)
            store.setValue(coffee[i], series: 1, category: i)
            store.setValue(muffins[i], series: 2, category: i)
        }
        return store
    }

    /// Deterministic calories for bar `i`, in 1800…2200.
    static func calories(_ i: Int) -> Double { 1800 + Double((i * 137) % 401) }

    static func intake(window: Int? = 60) -> ChartStore {
        let store = ChartStore(spec: ChartSpec(
            id: "intake", title: "Calories eaten", mark: .bar, xKind: .time, series: ["Calories"],
            interactions: Interactions(hover: false, drag: .range, tap: false),
            window: window, xPadding: day / 2))
        for i in 0..<15 { store.upsert(x: may1 + Double(2 * i) * day, values: [calories(i)]) }
        return store
    }

    /// Deterministic skin temperature for day `i`, around 36.5 °C.
    static func temperature(_ i: Int) -> Double { 36.0 + Double((i * 7) % 10) / 10 }

    static func temperature(window: Int? = 30) -> ChartStore {
        let store = ChartStore(spec: ChartSpec(
            id: "temperature", title: "Skin temperature", mark: .line, xKind: .time, series: ["Temperature"],
            interactions: Interactions(hover: false, drag: .range, tap: true),
            window: window, xPadding: day / 2))
        for i in 0..<30 { store.upsert(x: may1 + Double(i) * day, values: [temperature(i)]) }
        return store
    }

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

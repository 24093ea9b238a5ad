import Foundation
import ChartEngine

/// The five charts `chartcast` serves by default, built from the seed articles' data.
///
/// Engine-only (no I/O), so the server, the engine's tests and the benchmarks build the demo
/// from this one definition.
public enum DemoDashboard {
    /// The dashboard's title.
    public static let title = "ChartCast demo"

    /// 2022-05-01T00:00:00Z in epoch milliseconds.
    public static let may1st2022: Double = 1_651_363_200_000
    public static let dayMs: Double = 86_400_000

    public static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    public static let walkingMinutes: [Double] = [23, 45, 76, 21, 15, 35, 10]
    public static let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    public static let expenses: [Double] = [235, 500, 400, 350, 625, 375, 475, 600, 321, 100, 674, 456]
    public static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                                    "August", "September", "October", "November", "December"]
    public static let sales: [(String, [Double])] = [
        ("Ice Cream", [1000, 1200, 900, 950, 800, 700, 730, 600, 620, 800, 950, 1100]),
        ("Coffee", [1800, 2000, 1900, 1950, 2500, 2800, 2730, 2600, 1620, 1800, 1950, 2100]),
        ("Muffins", [900, 700, 800, 950, 900, 1000, 1200, 1100, 1000, 800, 950, 900]),
    ]

    /// The chart specs in dashboard order. `window` is the rolling window of the live time charts.
    public static func specs(window: Int) -> [ChartSpec] {
        [
            ChartSpec(id: "workouts", title: "Walking minutes", mark: .bar, xKind: .category, xLabel: "Day",
                      yLabel: "Minutes", series: ["Minutes"], categories: weekdays,
                      interactions: Interactions(hover: false, drag: .scrub, tap: false)),
            ChartSpec(id: "intake", title: "Calories eaten", mark: .bar, xKind: .time, xLabel: "Date",
                      yLabel: "Calories", series: ["Calories"], categories: [],
                      interactions: Interactions(hover: false, drag: .range, tap: false), window: window),
            ChartSpec(id: "expenses", title: "Monthly expenses", mark: .bar, xKind: .category, xLabel: "Month",
                      yLabel: "Expense", series: ["Expense"], categories: months,
                      interactions: Interactions(hover: false, drag: .scrub, tap: false)),
            ChartSpec(id: "sales", title: "Product sales in 2022", mark: .bar, xKind: .category, xLabel: "Month",
                      yLabel: "Sales", series: sales.map(\.0), categories: monthNames,
                      interactions: Interactions(hover: true, drag: .none, tap: false)),
            ChartSpec(id: "temperature", title: "Skin temperature", mark: .line, xKind: .time, xLabel: "Date",
                      yLabel: "Temperature (°C)", series: ["Temperature"], categories: [],
                      interactions: Interactions(hover: false, drag: .range, tap: true), window: window),
        ]
    }

    /// The demo's stores in dashboard order, filled with their initial data exactly as the
    /// server starts them (one generator, seed 1, shared in chart order).
    public static func makeStores(window: Int) -> [ChartStore] {
        var random = SplitMix64(seed: 1)
        return specs(window: window).map { spec in
            let store = ChartStore(spec: spec)
            seed(store, random: &random)
            return store
        }
    }

    /// One demo store by id (`nil` for an unknown id), as `makeStores(window:)` builds it.
    public static func store(_ id: String, window: Int = 60) -> ChartStore? {
        makeStores(window: window).first { $0.spec.id == id }
    }

    /// Fills a freshly created store with the chart's initial data.
    public static func seed(_ store: ChartStore, random: inout SplitMix64) {
        switch store.spec.id {
        case "workouts":
            for (index, minutes) in walkingMinutes.enumerated() { store.setValue(minutes, series: 0, category: index) }
        case "expenses":
            for (index, amount) in expenses.enumerated() { store.setValue(amount, series: 0, category: index) }
        case "sales":
            for (seriesIndex, (_, values)) in sales.enumerated() {
                for (month, value) in values.enumerated() { store.setValue(value, series: seriesIndex, category: month) }
            }
        case "intake":
            // Seed 001: stride(from: 1, to: 31, by: 2) → May 1, 3, …, 29; calories 1800…2200.
            for day in stride(from: 0, to: 30, by: 2) {
                store.upsert(x: may1st2022 + Double(day) * dayMs, values: [calories(&random)])
            }
        case "temperature":
            for day in 0..<30 {
                store.upsert(x: may1st2022 + Double(day) * dayMs, values: [temperature(day: day, random: &random)])
            }
        default:
            break
        }
    }

    /// A deterministic daily calorie figure in 1800…2200.
    public static func calories(_ random: inout SplitMix64) -> Double {
        Double(1800 + random.next(upperBound: 401))
    }

    /// A deterministic skin temperature in °C around 36.5, two decimals.
    public static func temperature(day: Int, random: inout SplitMix64) -> Double {
        let wave = 0.35 * sin(Double(day) * 2 * Double.pi / 28)
        let noise = (Double(random.next(upperBound: 41)) - 20) / 100
        return ((36.5 + wave + noise) * 100).rounded() / 100
    }
}

/// The project's one seeded generator (SplitMix64): the demo data, the demo feeds, the soak's
/// choices, the benchmarks' data and the property tests repeat run to run.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<upperBound`.
    public mutating func next(upperBound: Int) -> Int { Int(next() % UInt64(upperBound)) }

    /// A value in `[0, 1)`, uniform, with 53 random bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

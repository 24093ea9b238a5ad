import ChartCastCluster
import ChartCastDemo
import ChartEngine

/// The demo dashboard's live data, advanced once per `--tick` on the service thread.
///
/// `workouts` and `expenses` change their newest category within a plausible range; `intake`
/// appends a bar two days after its last, `temperature` the next day; their stores evict beyond
/// the rolling window. Deterministic: the same seed gives every run the same sequence.
/// - Note: service thread only.
struct DemoFeeds {
    private var random: SplitMix64
    private var temperatureDay = 30
    /// The demo charts' definitions the feeds write to: a chart replaced or removed through the
    /// API is left alone.
    private let fed: Set<Int>

    /// Feeds for the demo charts among `channels`.
    init(feeding channels: [ChartChannel], seed: UInt64 = 2022) {
        random = SplitMix64(seed: seed)
        fed = Set(channels.map(\.specVersion))
    }

    /// Advances every live chart by one step. A selection that the new data changes (a range
    /// recomputed, a pin evicted) is re-encoded by its channel; the caller wakes the viewers.
    mutating func tick(_ channels: [ChartChannel], now: UInt64) {
        for channel in channels where !channel.isRemoved && fed.contains(channel.specVersion) {
            switch channel.id {
            case "workouts": walk(channel, step: 8, range: 5...90, now: now)
            case "expenses": walk(channel, step: 45, range: 100...700, now: now)
            case "intake":
                appendNext(channel, spacing: 2 * DemoDashboard.dayMs, value: DemoDashboard.calories(&random), now: now)
            case "temperature":
                let value = DemoDashboard.temperature(day: temperatureDay, random: &random)
                temperatureDay += 1
                appendNext(channel, spacing: DemoDashboard.dayMs, value: value, now: now)
            default: continue
            }
        }
    }

    /// The step `tick` would take, as operations for every instance to apply (the instance
    /// holding the feed lease computes it; `ServerCore.clusterTick`). Draws the same random
    /// numbers in the same order as `tick`.
    mutating func plan(_ channels: [ChartChannel]) -> [FeedOp] {
        var ops: [FeedOp] = []
        for channel in channels where !channel.isRemoved && fed.contains(channel.specVersion) {
            switch channel.id {
            case "workouts": ops.append(contentsOf: plannedWalk(channel, step: 8, range: 5...90))
            case "expenses": ops.append(contentsOf: plannedWalk(channel, step: 45, range: 100...700))
            case "intake":
                ops.append(plannedNext(channel, spacing: 2 * DemoDashboard.dayMs, value: DemoDashboard.calories(&random)))
            case "temperature":
                let value = DemoDashboard.temperature(day: temperatureDay, random: &random)
                temperatureDay += 1
                ops.append(plannedNext(channel, spacing: DemoDashboard.dayMs, value: value))
            default: continue
            }
        }
        return ops
    }

    /// `walk` as an operation.
    private mutating func plannedWalk(_ channel: ChartChannel, step: Int, range: ClosedRange<Double>) -> [FeedOp] {
        let last = channel.store.count - 1
        guard last >= 0 else { return [] }
        let current = channel.store.y(series: 0, at: last) ?? range.lowerBound
        let delta = Double(random.next(upperBound: 2 * step + 1) - step)
        let next = min(range.upperBound, max(range.lowerBound, current + delta))
        return [.setCategory(chart: channel.id, series: 0, category: last, y: next)]
    }

    /// `appendNext` as an operation.
    private func plannedNext(_ channel: ChartChannel, spacing: Double, value: Double) -> FeedOp {
        let count = channel.store.count
        let x = count > 0 ? channel.store.xNumber(at: count - 1) + spacing : DemoDashboard.may1st2022
        return .upsert(chart: channel.id, x: x, values: [value])
    }

    /// Moves the last category's value by a random step, kept inside `range`.
    private mutating func walk(_ channel: ChartChannel, step: Int, range: ClosedRange<Double>, now: UInt64) {
        let last = channel.store.count - 1
        guard last >= 0 else { return }
        let current = channel.store.y(series: 0, at: last) ?? range.lowerBound
        let delta = Double(random.next(upperBound: 2 * step + 1) - step)
        let next = min(range.upperBound, max(range.lowerBound, current + delta))
        channel.setCategoryValue(next, series: 0, category: last, now: now)
    }

    /// Appends one point `spacing` after the chart's last x.
    private func appendNext(_ channel: ChartChannel, spacing: Double, value: Double, now: UInt64) {
        let count = channel.store.count
        let x = count > 0 ? channel.store.xNumber(at: count - 1) + spacing : DemoDashboard.may1st2022
        channel.upsert(x: x, values: [value], now: now)
    }
}

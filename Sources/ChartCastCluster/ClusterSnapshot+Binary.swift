import ChartCastProtocol
import ChartEngine

/// The stored form of a snapshot (the value of `ClusterKeys.snapshot`): binary, little-endian —
/// a dashboard's data is mostly doubles, kept as their bit patterns so that every value comes
/// back exactly. Specs and the last computed selection are kept as the protocol's JSON (numbers
/// in their shortest round-trip form). The epoch and `fresh` flag come first, so `header(_:)`
/// reads them without decoding the rest.
extension ClusterSnapshot {
    static let magic = Array("CCS1".utf8)

    /// The snapshot's bytes.
    /// - Complexity: O(points + viewers).
    public func encode() -> [UInt8] {
        var w = BinaryWriter()
        w.reserve(64 + charts.reduce(0) { $0 + 8 * $1.xs.count * (1 + $1.columns.count) })
        for byte in ClusterSnapshot.magic { w.u8(byte) }
        w.string(epoch)
        w.bool(fresh)
        w.int(charts.count)
        for chart in charts { ClusterSnapshot.write(chart, to: &w) }
        w.int(viewers.count)
        for viewer in viewers {
            w.string(viewer.info.id)
            w.string(viewer.info.name)
            w.string(viewer.info.color)
            w.int(viewer.instance)
        }
        return w.bytes
    }

    /// Reads a snapshot's bytes.
    /// - Throws: `ClusterEntryError` naming what is wrong.
    public static func decode(_ bytes: [UInt8]) throws -> ClusterSnapshot {
        var r = BinaryReader(bytes)
        let (epoch, fresh) = try readHeader(&r)
        var charts: [Chart] = []
        for _ in 0..<(try r.count(itemSize: 16)) { charts.append(try readChart(&r)) }
        var viewers: [Viewer] = []
        for _ in 0..<(try r.count(itemSize: 32)) {
            let info = ViewerInfo(id: try r.string(), name: try r.string(), color: try r.string())
            viewers.append(Viewer(info: info, instance: try r.int()))
        }
        guard r.isAtEnd else { throw ClusterEntryError("snapshot: bytes after the end") }
        return ClusterSnapshot(epoch: epoch, fresh: fresh, charts: charts, viewers: viewers)
    }

    /// The epoch and `fresh` flag of a snapshot's bytes.
    public static func header(_ bytes: [UInt8]) throws -> (epoch: String, fresh: Bool) {
        var r = BinaryReader(bytes)
        return try readHeader(&r)
    }

    private static func readHeader(_ r: inout BinaryReader) throws -> (String, Bool) {
        for byte in magic where try r.u8() != byte { throw ClusterEntryError("snapshot: not a ChartCast snapshot (or another version)") }
        return (try r.string(), try r.bool())
    }

    // MARK: Charts

    private static func write(_ chart: Chart, to w: inout BinaryWriter) {
        w.data(chart.spec.encoded())
        w.int(chart.seq)
        switch chart.sentX.domain {
        case .categories(let names):
            w.u8(0)
            w.int(names.count)
            for name in names { w.string(name) }
        case .numeric(let d0, let d1):
            w.u8(chart.sentX.kind == .time ? 1 : 2)
            w.double(d0)
            w.double(d1)
        }
        w.double(chart.sentY.lowerBound)
        w.double(chart.sentY.upperBound)
        w.doubles(chart.xs)
        w.int(chart.columns.count)
        for column in chart.columns { w.doubles(column.map { $0 ?? .nan }) }   // NaN: no value (never a value itself)
        write(chart.selection, of: chart.spec.id, to: &w)
    }

    private static func readChart(_ r: inout BinaryReader) throws -> Chart {
        let spec: ChartSpec
        do {
            spec = try ChartSpec.parse(try r.data())
        } catch let error as ClusterEntryError {
            throw error
        } catch {
            throw ClusterEntryError("snapshot: a chart spec: \(error)")
        }
        let seq = try r.int()
        let sentX: XAxis
        switch try r.u8() {
        case 0:
            var names: [String] = []
            for _ in 0..<(try r.count(itemSize: 8)) { names.append(try r.string()) }
            sentX = XAxis(kind: .category, domain: .categories(names))
        case let kind where kind == 1 || kind == 2:
            sentX = XAxis(kind: kind == 1 ? .time : .linear, domain: .numeric(try r.double(), try r.double()))
        default:
            throw ClusterEntryError("snapshot: an x axis of an unknown kind")
        }
        let y0 = try r.double(), y1 = try r.double()
        guard y0 <= y1 else { throw ClusterEntryError("snapshot: a y domain from \(y0) to \(y1)") }
        let xs = try r.doubles()
        var columns: [[Double?]] = []
        for _ in 0..<(try r.count(itemSize: 8)) {
            let column = try r.doubles().map { $0.isNaN ? nil : $0 }
            guard column.count == xs.count else { throw ClusterEntryError("snapshot: chart \(spec.id) has columns of another length") }
            columns.append(column)
        }
        guard columns.count == spec.series.count else { throw ClusterEntryError("snapshot: chart \(spec.id) has \(columns.count) columns for \(spec.series.count) series") }
        return Chart(spec: spec, seq: seq, sentX: sentX, sentY: y0...y1, xs: xs, columns: columns,
                     selection: try readSelection(&r))
    }

    // MARK: Selections

    private static func write(_ state: SharedSelectionState, of chart: String, to w: inout BinaryWriter) {
        w.data(ServerMessage.selection(ServerMessage.SelectionUpdate(chart: chart, seq: 0, selection: state.selection)).encode())
        w.int(state.hovers.count)
        for hover in state.hovers {
            w.string(hover.viewer)
            switch hover.source {
            case .pointer(let x, let viewport):
                w.u8(0)
                w.double(x)
                write(viewport, to: &w)
            case .mark(let x):
                w.u8(1)
                w.double(x)
            case .value(let x):
                w.u8(2)
                w.double(x)
            }
        }
        w.bool(state.drag != nil)
        if let drag = state.drag {
            w.string(drag.owner)
            w.bool(drag.keyboard)
            switch drag.kind {
            case .scrub(let x, let y, let viewport):
                w.u8(0)
                w.double(x)
                w.double(y)
                write(viewport, to: &w)
            case .scrubAt(let x, let yFraction):
                w.u8(1)
                w.optionalDouble(x)
                w.double(yFraction)
            case .range(let a, let b):
                w.u8(2)
                w.double(a)
                w.double(b)
            }
        }
        w.optionalDouble(state.pinnedX)
        w.string(state.pinnedBy ?? "")
        w.int(state.viewers.count)
        for viewer in state.viewers {
            w.string(viewer.viewer)
            w.bool(viewer.pressIgnored)
            w.optionalDouble(viewer.cursorX)
        }
    }

    private static func readSelection(_ r: inout BinaryReader) throws -> SharedSelectionState {
        let selection: Selection
        do {
            guard case .selection(let update) = try ServerMessage.decode(try r.data()) else {
                throw ClusterEntryError("snapshot: a selection that is not one")
            }
            selection = update.selection
        } catch let error as ClusterEntryError {
            throw error
        } catch {
            throw ClusterEntryError("snapshot: a selection: \(error)")
        }
        var hovers: [SharedSelectionState.Hover] = []
        for _ in 0..<(try r.count(itemSize: 17)) {
            let viewer = try r.string()
            let source: SharedSelectionState.HoverSource
            switch try r.u8() {
            case 0: source = .pointer(x: try r.double(), viewport: try readViewport(&r))
            case 1: source = .mark(x: try r.double())
            case 2: source = .value(x: try r.double())
            default: throw ClusterEntryError("snapshot: a hover of an unknown kind")
            }
            hovers.append(.init(viewer: viewer, source: source))
        }
        var drag: SharedSelectionState.Drag?
        if try r.bool() {
            let owner = try r.string(), keyboard = try r.bool()
            let kind: SharedSelectionState.DragKind
            switch try r.u8() {
            case 0: kind = .scrub(x: try r.double(), y: try r.double(), viewport: try readViewport(&r))
            case 1: kind = .scrubAt(x: try r.optionalDouble(), yFraction: try r.double())
            case 2: kind = .range(a: try r.double(), b: try r.double())
            default: throw ClusterEntryError("snapshot: a drag of an unknown kind")
            }
            drag = .init(owner: owner, keyboard: keyboard, kind: kind)
        }
        let pinnedX = try r.optionalDouble()
        let pinnedBy = try r.string()
        var viewers: [SharedSelectionState.ViewerInput] = []
        for _ in 0..<(try r.count(itemSize: 10)) {
            viewers.append(.init(viewer: try r.string(), pressIgnored: try r.bool(), cursorX: try r.optionalDouble()))
        }
        return SharedSelectionState(selection: selection, hovers: hovers, drag: drag, pinnedX: pinnedX,
                                    pinnedBy: pinnedX == nil ? nil : pinnedBy, viewers: viewers)
    }

    private static func write(_ viewport: Viewport, to w: inout BinaryWriter) {
        w.double(viewport.x)
        w.double(viewport.y)
        w.double(viewport.width)
        w.double(viewport.height)
        w.bool(viewport.rtl)
        w.optionalDouble(viewport.xDomain?.lowerBound)
        w.optionalDouble(viewport.xDomain?.upperBound)
        w.optionalDouble(viewport.yDomain?.lowerBound)
        w.optionalDouble(viewport.yDomain?.upperBound)
    }

    private static func readViewport(_ r: inout BinaryReader) throws -> Viewport {
        let x = try r.double(), y = try r.double(), width = try r.double(), height = try r.double(), rtl = try r.bool()
        func range(_ lo: Double?, _ hi: Double?) throws -> ClosedRange<Double>? {
            guard let lo, let hi else { return nil }
            guard lo <= hi else { throw ClusterEntryError("snapshot: a viewport domain from \(lo) to \(hi)") }
            return lo...hi
        }
        let xDomain = try range(try r.optionalDouble(), try r.optionalDouble())
        let yDomain = try range(try r.optionalDouble(), try r.optionalDouble())
        return Viewport(x: x, y: y, width: width, height: height, rtl: rtl, xDomain: xDomain, yDomain: yDomain)
    }
}

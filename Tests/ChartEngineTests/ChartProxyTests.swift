import XCTest
@testable import ChartEngine

final class ChartProxyTests: XCTestCase {
    private let ltr = DemoCharts.viewport
    private let rtl = Viewport(x: 48, y: 12, width: 620, height: 280, rtl: true)

    func testPlotLocalXSubtractsTheOriginAndMirrorsRightToLeft() {
        let store = DemoCharts.workouts()
        XCTAssertEqual(ChartProxy(store: store, viewport: ltr).plotLocalX(148), 100)
        XCTAssertEqual(ChartProxy(store: store, viewport: rtl).plotLocalX(148), 520)
        XCTAssertEqual(ChartProxy(store: store, viewport: rtl).fraction(forPointerX: 48), 1)
        XCTAssertEqual(ChartProxy(store: store, viewport: ltr).fraction(forPointerX: 0), -48.0 / 620)
    }

    func testCategoryValueAtXCoversEqualStepsAndIsNilOutside() {
        let store = DemoCharts.workouts()
        let proxy = ChartProxy(store: store, viewport: ltr)
        let step = 620.0 / 7
        let table: [(Double, XValue?)] = [
            (47.9, nil), (48, .category("Mon")), (48 + step - 0.01, .category("Mon")),
            (48 + step + 1e-9, .category("Tue")), (48 + 2.5 * step, .category("Wed")),
            (668, .category("Sun")), (668.1, nil),
        ]
        for (x, expected) in table { XCTAssertEqual(proxy.value(atX: x), expected, "x = \(x)") }
    }

    func testRightToLeftMirrorsCategories() {
        let store = DemoCharts.workouts()
        let proxy = ChartProxy(store: store, viewport: rtl)
        XCTAssertEqual(proxy.value(atX: 49), .category("Sun"), "the left edge is the last category")
        XCTAssertEqual(proxy.value(atX: 667), .category("Mon"))
        for i in 0..<7 {
            let name = DemoCharts.weekdays[i]
            let pixel = proxy.position(forX: .category(name))!
            XCTAssertEqual(pixel, 48 + 620 - (Double(i) + 0.5) * 620 / 7, accuracy: 1e-9)
            XCTAssertEqual(proxy.value(atX: pixel), .category(name), "band centre round-trips")
        }
    }

    func testTimeValueAndPositionRoundTrip() {
        let store = DemoCharts.intake()
        let (d0, d1) = store.xDomain
        for viewport in [ltr, rtl] {
            let proxy = ChartProxy(store: store, viewport: viewport)
            for i in 0..<store.count {
                let x = store.x(at: i)
                let pixel = proxy.position(forX: x)!
                guard case .number(let t)? = proxy.value(atX: pixel) else { return XCTFail("no value at \(pixel)") }
                XCTAssertEqual(t, store.xNumber(at: i), accuracy: 1e-3)
            }
            let leftEdge = proxy.value(atX: 48), rightEdge = proxy.value(atX: 668)
            XCTAssertEqual(leftEdge, .number(viewport.rtl ? d1 : d0))
            XCTAssertEqual(rightEdge, .number(viewport.rtl ? d0 : d1))
            XCTAssertNil(proxy.value(atX: 47))
            XCTAssertNil(proxy.value(atX: 669))
        }
    }

    func testValueAtPointAndYFraction() {
        let store = DemoCharts.workouts()   // y domain (0, 80)
        let proxy = ChartProxy(store: store, viewport: ltr)
        let v = proxy.value(at: (x: 48 + 2.5 * 620 / 7, y: 12 + 140))
        XCTAssertEqual(v?.x, .category("Wed"))
        XCTAssertEqual(v?.y ?? -1, 40, accuracy: 1e-9)
        XCTAssertNil(proxy.value(at: (x: 100, y: 11)), "above the plot")
        XCTAssertNil(proxy.value(at: (x: 100, y: 293)), "below the plot")
        XCTAssertEqual(proxy.yFraction(forPointerY: 12), 0)
        XCTAssertEqual(proxy.yFraction(forPointerY: 152), 0.5)
        XCTAssertEqual(proxy.yFraction(forPointerY: -100), 0)
        XCTAssertEqual(proxy.yFraction(forPointerY: 900), 1)
    }

    func testDegenerateViewportsAndUnknownCategories() {
        let store = DemoCharts.workouts()
        let flat = ChartProxy(store: store, viewport: Viewport(x: 0, y: 0, width: 0, height: 0, rtl: false))
        XCTAssertNil(flat.value(atX: 0))
        XCTAssertEqual(flat.fraction(forPointerX: 10), 0)
        XCTAssertNil(flat.value(at: (x: 0, y: 0)))
        XCTAssertNil(ChartProxy(store: store, viewport: ltr).position(forX: .category("Someday")))
    }

    func testAZoomedViewportMapsPointersThroughItsOwnDomain() {
        let spec = ChartSpec(id: "z", title: "Z", mark: .line, xKind: .linear, series: ["a"],
                             interactions: Interactions(hover: true, drag: .range, tap: true), window: 1_000)
        let store = ChartStore(spec: spec)
        for i in 0..<1_000 { store.upsert(x: Double(i), values: [Double(i % 10)]) }
        let live = Viewport(x: 10, y: 0, width: 500, height: 100)
        var zoomed = live
        zoomed.xDomain = 200...300
        XCTAssertEqual(ChartProxy(store: store, viewport: zoomed).xNumber(forPointerX: 10 + 250), 250)
        XCTAssertEqual(ChartProxy(store: store, viewport: live).xNumber(forPointerX: 10 + 250), 499.5)
        XCTAssertEqual(ChartProxy(store: store, viewport: zoomed).position(forX: .number(220)), 10 + 100)

        let engine = SelectionEngine(store: store)
        XCTAssertTrue(engine.pointer(viewer: "a", phase: .move, x: 10 + 51, y: 50, viewport: zoomed))
        XCTAssertEqual(engine.selection.hovers.first?.x, .number(210), "200 + 51/500 · 100 = 210.2 → nearest 210")
        XCTAssertEqual(engine.selection.hovers.first?.fraction ?? 0, (210 + 0.5) / 1_000, accuracy: 1e-12,
                       "the shared fraction stays in the chart's live domain")
        // A range dragged past the zoomed plot's edge is clamped to the view, not the chart.
        _ = engine.pointer(viewer: "a", phase: .down, x: 10 + 100, y: 50, viewport: zoomed)
        _ = engine.pointer(viewer: "a", phase: .move, x: 10 + 900, y: 50, viewport: zoomed)
        XCTAssertEqual(engine.selection.range?.from, .number(220))
        XCTAssertEqual(engine.selection.range?.to, .number(300))
        XCTAssertEqual(engine.selection.range?.count, 81)
    }
}

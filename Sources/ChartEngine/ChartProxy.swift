/// One viewer's plot frame for one chart, in CSS pixels from the chart canvas's top-left corner.
public struct Viewport: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// Right-to-left layout: the first x value is drawn at the right edge.
    public var rtl: Bool
    /// The x domain this viewer's plot shows (time/linear charts), when it is zoomed to one of its
    /// own; nil: the chart's live domain, `ChartStore.xDomain`.
    public var xDomain: ClosedRange<Double>?
    /// The y domain this viewer's plot is drawn with, when the server knows it: the one it last
    /// sent that viewer (a zoomed viewer's snapshot may differ from the live window's, and its
    /// page widens it with appends while zoomed); nil: the chart's live `ChartStore.yDomain`.
    public var yDomain: ClosedRange<Double>?

    /// Creates a plot frame.
    public init(x: Double, y: Double, width: Double, height: Double, rtl: Bool = false,
                xDomain: ClosedRange<Double>? = nil, yDomain: ClosedRange<Double>? = nil) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.rtl = rtl
        self.xDomain = xDomain
        self.yDomain = yDomain
    }
}

/// One viewer's view of one chart: converts pointer pixels to data and back, like Swift Charts'
/// `ChartProxy` combined with the seeds' `location.x − geo[proxy.plotAreaFrame].origin.x`.
///
/// Geometry (shared with the page): category charts split the plot width into `n` equal steps,
/// step `i` covering `[i, i+1) · width/n` (the plot's far edge belongs to the last step); time and
/// linear charts map the viewer's x domain (`xDomain`: its zoomed view, else `store.xDomain`)
/// linearly onto the width, and every chart maps its y domain (`yDomain`: the one the viewer
/// was sent, else `store.yDomain`) onto the height, top = high. Fractions are in data order (0 = the
/// first category or `d0`) whatever the layout direction; right-to-left viewers are mirrored by
/// `plotLocalX(_:)`. The plot rectangle is closed: both edges are inside.
///
/// - Note: a cheap value; build one per event. It reads the store, so use it on the store's thread.
public struct ChartProxy {
    /// The data.
    public let store: ChartStore
    /// The viewer's plot frame.
    public let viewport: Viewport

    /// Creates a proxy.
    public init(store: ChartStore, viewport: Viewport) {
        self.store = store
        self.viewport = viewport
    }

    /// The x distance into the plot in data order: `x − plot.x`, or `width − (x − plot.x)` right-to-left.
    public func plotLocalX(_ pointerX: Double) -> Double {
        let local = pointerX - viewport.x
        return viewport.rtl ? viewport.width - local : local
    }

    /// `plotLocalX / width`, unclamped (0 when the plot has no width).
    public func fraction(forPointerX x: Double) -> Double {
        guard viewport.width > 0 else { return 0 }
        return plotLocalX(x) / viewport.width
    }

    /// Whether the pointer's x lies inside the plot (edges included).
    public func containsX(_ pointerX: Double) -> Bool {
        let f = fraction(forPointerX: pointerX)
        return viewport.width > 0 && f >= 0 && f <= 1
    }

    /// The category index under the pointer; outside the plot `nil`, or the first/last when `clamp`.
    ///
    /// - Complexity: O(1).
    public func categoryIndex(forPointerX x: Double, clamp: Bool) -> Int? {
        guard viewport.width > 0 else { return nil }
        let band = BandScale(domain: store.spec.categories, range: (0, viewport.width))
        return band.invert(plotLocalX(x), clamp: clamp)
    }

    /// The x domain this viewer's geometry maps through (time/linear charts): the viewport's own
    /// `xDomain` when it is zoomed, else the chart's live `store.xDomain`.
    public var xDomain: (Double, Double) {
        if let view = viewport.xDomain, store.spec.xKind != .category { return (view.lowerBound, view.upperBound) }
        return store.xDomain
    }

    /// The x number (time/linear) under the pointer, unclamped: `d0 + fraction · (d1 − d0)` over
    /// the viewer's `xDomain`.
    public func xNumber(forPointerX x: Double) -> Double {
        let (d0, d1) = xDomain
        return LinearScale(domain: (d0, d1), range: (0, 1)).invert(fraction(forPointerX: x))
    }

    /// The category under the pointer (`nil` outside the plot), or on time/linear charts the x
    /// number under the pointer (`nil` outside the plot).
    public func value(atX pointerX: Double) -> XValue? {
        if store.spec.xKind == .category {
            guard let i = categoryIndex(forPointerX: pointerX, clamp: false) else { return nil }
            return store.x(at: i)
        }
        guard containsX(pointerX) else { return nil }
        return .number(xNumber(forPointerX: pointerX))
    }

    /// The y domain this viewer's geometry maps through: the viewport's `yDomain` (what the
    /// viewer was sent and draws with) when set, else the chart's live `store.yDomain`.
    public var yDomain: (Double, Double) {
        if let drawn = viewport.yDomain { return (drawn.lowerBound, drawn.upperBound) }
        return store.yDomain
    }

    /// The x and y values under a pointer (y through the viewer's `yDomain`), or `nil` when it is
    /// outside the plot.
    public func value(at point: (x: Double, y: Double)) -> (x: XValue, y: Double)? {
        guard viewport.height > 0 else { return nil }
        let localY = point.y - viewport.y
        guard localY >= 0, localY <= viewport.height, let x = value(atX: point.x) else { return nil }
        let (y0, y1) = yDomain
        let y = LinearScale(domain: (y0, y1), range: (viewport.height, 0)).invert(localY)
        return (x, y)
    }

    /// The data fraction of an x value in this viewer's plot: category centre `(i + 0.5) / n`, or
    /// `(x − d0) / (d1 − d0)` over the viewer's `xDomain`.
    /// `nil` for an unknown category.
    public func fraction(forX x: XValue) -> Double? {
        switch x {
        case .category(let name):
            guard let i = store.index(ofCategory: name), store.count > 0 else { return nil }
            return (Double(i) + 0.5) / Double(store.count)
        case .number(let value):
            if store.spec.xKind == .category {
                guard store.count > 0 else { return nil }
                return (value + 0.5) / Double(store.count)
            }
            let (d0, d1) = xDomain
            return LinearScale(domain: (d0, d1)).fraction(value)
        }
    }

    /// The canvas pixel of an x value (honours right-to-left); the band centre for categories.
    public func position(forX x: XValue) -> Double? {
        guard let f = fraction(forX: x) else { return nil }
        let local = f * viewport.width
        return viewport.rtl ? viewport.x + viewport.width - local : viewport.x + local
    }

    /// The pointer's height in the plot: 0 at the top, 1 at the bottom, clamped.
    public func yFraction(forPointerY y: Double) -> Double {
        guard viewport.height > 0 else { return 0 }
        return Swift.min(1, Swift.max(0, (y - viewport.y) / viewport.height))
    }
}

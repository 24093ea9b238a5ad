/// One viewer's pointer gesture on one chart, in data space: what `SelectionEngine.pointer`
/// works out from pixels, once the viewer's own geometry has been applied.
///
/// Several instances of a server share one selection by applying the same inputs in the same
/// order (`SelectionEngine.apply(_:from:)`). The instance holding the viewer recognises its
/// gestures (the slop is in that viewer's pixels) and maps the pointer through that viewer's
/// `ChartProxy` (`SelectionEngine.recognize`); the result no longer depends on any viewer's
/// geometry, so every instance that applies it decides the same (who owns the drag, whether a
/// tap pins, which hovers are kept).
///
/// x values are data values: time/linear charts the x number, category charts the category
/// index (as a `Double`).
public enum SelectionInput: Equatable, Sendable {
    /// A move with nothing pressed; `x` nil when the pointer is outside the plot.
    case hover(x: Double?)
    /// A press started; `hoverX` as for a hover (charts without drags hover while pressed).
    case pressBegan(hoverX: Double?)
    /// A press moved within the slop.
    case pressMoved(hoverX: Double?)
    /// A press moved past the slop: a drag starts.
    case dragBegan(DragPoint, rangeStart: Double)
    /// An ongoing drag moved.
    case dragMoved(DragPoint)
    /// An ongoing drag was released.
    case dragEnded
    /// A press released within the slop; `x` as for a hover (nil: outside the plot, unpins).
    case tap(x: Double?)
    /// The pointer left the chart.
    case left
}

/// Where a dragging pointer is, in every form a drag can use: the chart decides when the input
/// is applied whether it scrubs, selects a range or (without drags) hovers.
public struct DragPoint: Equatable, Sendable {
    /// As for a hover: the x under the pointer, nil outside the plot.
    public var hoverX: Double?
    /// The x under the pointer clamped to the viewer's x domain (category charts: the category
    /// index under it, clamped to the first and last), nil when the plot has no width: a scrub
    /// shows its nearest row, and a range ends there.
    public var clampedX: Double?
    /// The pointer's height in the plot: 0 at the top, 1 at the bottom, clamped.
    public var yFraction: Double

    public init(hoverX: Double?, clampedX: Double?, yFraction: Double) {
        self.hoverX = hoverX
        self.clampedX = clampedX
        self.yFraction = yFraction
    }
}

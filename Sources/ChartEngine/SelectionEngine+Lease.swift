extension SelectionEngine {
    /// Notes that `viewer` just sent input to this chart (a pointer or key event, fed to the
    /// engine right before) at `time`, in seconds of the caller's monotonic clock. Renews the
    /// drag lease when `viewer` owns the drag; does nothing otherwise.
    ///
    /// The engine keeps no clock: the caller passes time in here and in `releaseIdleDrag`.
    /// - Complexity: O(1).
    public func noteInput(from viewer: String, at time: Double) {
        guard let owner = drag?.owner, owner == viewer else { return }
        leaseInput = (owner, time)
    }

    /// Ends the drag when its owner has sent no input (`noteInput`) for `lease` seconds or more
    /// at `now`: the chart is released for everyone else, as when the owner leaves (its hover
    /// and the pin stay). Returns the former owner, nil when the lease holds or nobody drags.
    ///
    /// A drag whose owner was never noted (the caller did not report its input) starts its
    /// lease now.
    /// - Complexity: O(1), plus `refreshDrag` when the drag ends.
    @discardableResult
    public func releaseIdleDrag(now: Double, lease: Double) -> String? {
        guard let owner = drag?.owner else {
            leaseInput = nil
            return nil
        }
        guard let input = leaseInput, input.owner == owner else {
            leaseInput = (owner, now)
            return nil
        }
        guard now - input.at >= lease else { return nil }
        revokeDrag()
        return owner
    }

    /// Ends the drag whoever owns it (pointer drag or keyboard range). The owner's press in
    /// progress, if any, is ignored until it releases, so a frozen owner waking up does not
    /// take the chart back mid-gesture. Returns the former owner, nil without a drag.
    /// - Complexity: O(1), plus `refreshDrag`.
    @discardableResult
    public func revokeDrag() -> String? {
        guard let owner = drag?.owner else { return nil }
        drag = nil
        leaseInput = nil
        if viewers[owner]?.gesture.isPressed == true { viewers[owner]?.pressIgnored = true }
        refreshDrag()
        return owner
    }
}

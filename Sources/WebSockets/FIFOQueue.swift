/// A first-in, first-out queue over an array with a moving head.
///
/// `popFirst()` only advances the head; the storage is emptied (keeping its capacity) once the
/// queue runs dry, and compacted when the consumed prefix outgrows what is still queued, so a
/// queue that never quite empties does not grow without bound. Popped elements are released at
/// that point, not at once. Used for the client's outbound frames and the server's per-viewer
/// personal frames.
///
/// Inlinable so that users in other modules get a specialised copy (no generic dispatch on hot
/// write paths).
/// - Note: a value; the owner's thread rules apply.
public struct FIFOQueue<Element> {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0
    /// `storage.count - head`, kept beside them so that asking an empty queue (every viewer's
    /// personal queue, on every frame of a fan-out) reads no more than the queue's own words,
    /// not the storage's heap header: one cache miss less per viewer.
    @usableFromInline var queued = 0

    @inlinable
    public init() {}

    /// Elements still queued.
    @inlinable
    public var count: Int { queued }

    /// True when nothing is queued.
    @inlinable
    public var isEmpty: Bool { queued == 0 }

    /// The oldest element, without removing it.
    @inlinable
    public var first: Element? { queued > 0 ? storage[head] : nil }

    /// Queues `element` at the back.
    /// - Complexity: amortised O(1).
    @inlinable
    public mutating func append(_ element: Element) {
        storage.append(element)
        queued += 1
    }

    /// Queues every element of `elements`, in order.
    /// - Complexity: O(elements) amortised.
    @inlinable
    public mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        storage.append(contentsOf: elements)
        queued = storage.count - head
    }

    /// Removes and returns the oldest element, nil when empty.
    /// - Complexity: amortised O(1): a compaction moves at most as many elements as were popped
    ///   since the previous one.
    @inlinable
    public mutating func popFirst() -> Element? {
        guard queued > 0 else { return nil }
        let element = storage[head]
        head += 1
        queued -= 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeSubrange(0..<head)
            head = 0
        }
        return element
    }

    /// Drops everything queued and releases the storage.
    @inlinable
    public mutating func removeAll() {
        storage.removeAll()
        head = 0
        queued = 0
    }
}

extension FIFOQueue: Sequence {
    /// Iterates the queued elements, oldest first, without removing them.
    @inlinable
    public func makeIterator() -> ArraySlice<Element>.Iterator {
        storage[head...].makeIterator()
    }
}

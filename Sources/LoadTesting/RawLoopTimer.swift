#if canImport(Glibc)
import Glibc
#endif

/// A one-shot or repeating timer of a `RawWebSocketLoop`. A repeating timer keeps its cadence
/// (each firing is due one interval after the previous due time) and skips the ticks it missed
/// when the loop fell behind, as the libwebsockets client's timers do.
/// - Note: service thread only.
final class RawLoopTimer: LoadTimer {
    let interval: Double?
    let action: () -> Void
    /// Monotonic nanoseconds.
    var due: UInt64
    private(set) var isActive = true

    init(interval: Double?, action: @escaping () -> Void, due: UInt64) {
        self.interval = interval
        self.action = action
        self.due = due
    }

    /// It will not fire again (a cancelled timer leaves the heap when it comes up).
    func cancel() { isActive = false }
}

/// The loop's timers in a binary min-heap by due time.
/// - Note: service thread only.
struct RawLoopTimerHeap {
    private var heap: [RawLoopTimer] = []

    mutating func add(_ timer: RawLoopTimer) -> RawLoopTimer {
        heap.append(timer)
        siftUp(heap.count - 1)
        return timer
    }

    /// The next timer due by `now`, taken off the heap (a repeating one re-armed first), or nil.
    /// The caller runs its action: an action may schedule timers itself.
    /// - Complexity: O(log timers).
    mutating func popDue(now: UInt64) -> RawLoopTimer? {
        while let first = heap.first {
            if !first.isActive { removeFirst(); continue }
            guard first.due <= now else { return nil }
            removeFirst()
            if let interval = first.interval {
                first.due &+= UInt64(interval * 1e9)
                if first.due <= now { first.due = now &+ 1 }   // fell behind: skip the missed ticks (next pass)
                _ = add(first)
            }
            return first
        }
        return nil
    }

    /// The `epoll_wait` timeout until the next active timer: milliseconds, rounded up, at most a
    /// second; -1 when none is scheduled.
    mutating func timeout(now: UInt64) -> Int32 {
        while let first = heap.first, !first.isActive { removeFirst() }
        guard let first = heap.first else { return -1 }
        return first.due <= now ? 0 : Int32(min(1_000, (first.due - now + 999_999) / 1_000_000))
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count && heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// A resolved server address for `connect(2)`.
struct RawSocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    var family: Int32 = 0

    init?(host: String, port: Int) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &info) == 0, let first = info else { return nil }
        defer { freeaddrinfo(info) }
        family = first.pointee.ai_family
        length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
    }
}

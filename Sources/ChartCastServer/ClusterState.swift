import ChartCastCluster
import ChartCastProtocol

/// What the server keeps about the other instances of its dashboard (`--redis`): the link to
/// Redis, the callers waiting for their entries to come back applied, and the directory of every
/// viewer of the dashboard, whichever instance holds it.
/// - Note: service thread only (the link's own threads never touch it).
final class ClusterState {
    let link: ClusterLink
    /// This instance's number.
    var instance: Int { link.instance }
    /// Callers waiting for an entry this instance added, by ticket: run when the entry has been
    /// applied (in stream order), or when it could not be added.
    var waiting: [Int: ClusterWaiter] = [:]
    private var lastTicket = 0
    /// Every viewer of the dashboard in the order their joins are in the stream.
    private(set) var directory = Roster<ClusterViewer>()
    private var byID: [String: ClusterViewer] = [:]
    /// Viewers this instance has opened so far (the second part of their ids).
    var viewerCounter = 0
    /// A demo feed step this instance added has not come back yet: the next waits for it, so
    /// that it starts from the data the previous one left.
    var feedStepPending = false
    /// Whether the link to Redis works, as last reported by its threads.
    var isUp = true
    /// The id of the last stream entry applied ("0-0" before the first).
    var lastApplied = "0-0"
    /// The epoch the state belongs to, and whether it began as a starting state
    /// (`ClusterLink.epoch`), as of the last snapshot taken or claim made here.
    var epoch = ""
    var epochIsBirth = false
    /// The newest entry of this instance's that cannot come back any more: the instance took a
    /// snapshot holding everything up to it (or claimed the dashboard at it). An entry whose id
    /// is not after it is answered as orphaned (`ServerCore.resolveOrphans`).
    var cutoff: String?
    /// The snapshot timer: when one was last offered (monotonic ns), as of which entry, and
    /// whether one is being stored.
    var lastSnapshotAt: UInt64 = 0
    var lastSnapshotPosition = ""
    var snapshotPending = false

    init(link: ClusterLink) {
        self.link = link
    }

    /// A new ticket for an entry this instance adds.
    func takeTicket() -> Int {
        lastTicket += 1
        return lastTicket
    }

    /// The id and name of the next viewer opened here: `v<instance>-<n>`, unique across the
    /// instances of the dashboard.
    func nextViewer(color palette: [String]) -> ViewerInfo {
        viewerCounter += 1
        let tag = "\(instance)-\(viewerCounter)"
        return ViewerInfo(id: "v\(tag)", name: "Viewer \(tag)", color: palette[(viewerCounter - 1) % palette.count])
    }

    /// The viewer `id` of the dashboard, if it is in the directory.
    func viewer(_ id: String) -> ClusterViewer? { byID[id] }

    /// Whether `id` is a viewer this instance holds.
    func isLocal(_ id: String) -> Bool { byID[id]?.instance == instance }

    /// Adds a viewer that joined (once). Returns false when it was there already.
    /// - Complexity: amortised O(1).
    @discardableResult
    func add(_ info: ViewerInfo, instance: Int) -> Bool {
        guard byID[info.id] == nil else { return false }
        let viewer = ClusterViewer(info: info, instance: instance)
        byID[info.id] = viewer
        directory.append(viewer)
        return true
    }

    /// Replaces the whole directory (a snapshot was taken), in the snapshot's join order.
    /// - Complexity: O(viewers).
    func replaceDirectory(_ viewers: [ClusterSnapshot.Viewer]) {
        directory = Roster<ClusterViewer>()
        byID = [:]
        for viewer in viewers { add(viewer.info, instance: viewer.instance) }
    }

    /// Removes a viewer that left. Returns false when it was not there.
    /// - Complexity: amortised O(1).
    @discardableResult
    func remove(_ id: String) -> Bool {
        guard let viewer = byID.removeValue(forKey: id) else { return false }
        directory.remove(viewer)
        return true
    }

    /// The viewers instance `instance` holds.
    /// - Complexity: O(viewers).
    func viewers(of instance: Int) -> [ClusterViewer] {
        directory.filter { $0.instance == instance }
    }

    var viewerCount: Int { directory.count }
}

/// One viewer of the dashboard, on whichever instance.
final class ClusterViewer: RosterMember {
    var info: ViewerInfo
    /// The instance that holds its connection.
    let instance: Int
    var rosterSlot = -1

    init(info: ViewerInfo, instance: Int) {
        self.info = info
        self.instance = instance
    }
}

/// A caller waiting for an entry this instance added.
struct ClusterWaiter {
    var run: (ClusterResult) -> Void
    /// An answer is owed (a write, a definition): its entry's id is noted when known, so that it
    /// is answered even when a snapshot covers the entry (`ServerCore.resolveOrphans`). Untracked
    /// waiters (input refusals, demo feed steps) are dropped then.
    var tracked: Bool
    var id: String?
}

/// How an entry this instance added ended.
enum ClusterResult {
    /// It was added and applied; what applying it did.
    case applied(EntryOutcome)
    /// It could not be added (Redis unreachable): nothing was applied anywhere.
    case failed(RedisError)
    /// It was added, but the instance caught up from a snapshot that holds everything up to it
    /// (or claimed the dashboard after Redis lost it): whether it was applied is not known here.
    case orphaned
}

/// What applying one entry did, for the caller that added it.
enum EntryOutcome {
    case none
    case definition(ServerCore.Definition)
    case removed(Bool)
    case write(WriteOutcome)
}

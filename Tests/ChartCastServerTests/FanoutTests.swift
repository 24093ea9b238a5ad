import ChartCastProtocol
import ChartEngine
import Foundation
import WebSockets
import XCTest
@testable import ChartCastServer

/// The fan-out decisions of `ServerCore`, driven without sockets: what a viewer that has not been
/// writable for a while is sent when it finally is, and what arrivals and departures cost.
final class FanoutTests: XCTestCase {
    final class FakeConnection: ViewerConnection {
        let id: Int
        let remoteAddress = "test"
        var userData: AnyObject?
        var writeRequests = 0
        var closedWith: UInt16?
        var authorization: String?
        init(id: Int) { self.id = id }
        func requestWrite() { writeRequests += 1 }
        func close(code: UInt16, reason: String) { closedWith = code }
    }

    private var core: ServerCore!
    private var nextID = 0

    override func setUp() {
        core = ServerCore(options: ServerOptions(port: 0, window: 60), logger: Logger(level: .error))
    }

    /// Opens a viewer and returns it with every frame it was initially owed already taken.
    private func openViewer() throws -> FakeConnection {
        nextID += 1
        let connection = FakeConnection(id: nextID)
        core.open(connection)
        core.publishViewersIfNeeded()
        _ = try drain(connection)
        return connection
    }

    /// Takes frames until the core has nothing more for `connection`, as a writable socket would:
    /// the server writes one frame per writable callback and asks again only while the previous
    /// answer said `morePending`. Here every pull is made, and each `morePending` must predict
    /// exactly what the next pull returns, since the socket is re-armed on its word alone.
    private func drain(_ connection: FakeConnection, limit: Int = 10_000) throws -> [ServerMessage] {
        var messages: [ServerMessage] = []
        var promised: Bool?
        while true {
            let next = core.nextFrame(for: connection)
            if next.frame == nil, core.isHeld(connection) {
                // The pass wrote its share of chart data: the viewer is woken in a later pass.
                XCTAssertEqual(promised ?? true, true, "held although nothing was pending")
                core.finishServicePass()
                continue
            }
            if let promised {
                XCTAssertEqual(promised, next.frame != nil,
                               "morePending was \(promised) but the next pull \(next.frame == nil ? "was empty" : "had a frame") after \(messages.count) frames")
            }
            guard let frame = next.frame else {
                XCTAssertFalse(next.morePending, "nothing now, yet more pending")
                break
            }
            messages.append(try ServerMessage.decode(frame.bytes))
            promised = next.morePending
            XCTAssertLessThan(messages.count, limit, "fan-out never ran dry")
            if messages.count >= limit { break }
        }
        return messages
    }

    private func send(_ connection: FakeConnection, _ message: ClientMessage) {
        core.receive(.text(message.encode()), from: connection)
    }

    private func viewport(_ chart: String, width: Double = 1200) -> ClientMessage {
        .viewport(.init(chart: chart, viewport: Viewport(x: 0, y: 0, width: width, height: 300)))
    }

    private func pointer(_ chart: String, _ phase: PointerPhase, x: Double, ref: String? = nil) -> ClientMessage {
        .pointer(.init(chart: chart, phase: phase, x: x, y: 10, ref: ref))
    }

    private func selections(_ messages: [ServerMessage]) -> [ServerMessage.SelectionUpdate] {
        messages.compactMap { if case .selection(let update) = $0 { return update }; return nil }
    }

    private func viewerList() throws -> ServerMessage.ViewerList {
        guard case .viewers(let list) = try ServerMessage.decode(core.currentViewersFrame().bytes) else {
            throw TestFailure("the viewers frame is not a viewers message")
        }
        return list
    }

    func testAViewerFurtherBehindThanTheLogGetsOneSnapshotPerChartNotABacklog() throws {
        let slow = try openViewer()
        let live = ["workouts", "intake", "expenses", "temperature"]
        for _ in 0..<(ServerCore.appendLogCapacity + 10) { core.tick() }
        let messages = try drain(slow)
        XCTAssertEqual(messages.map(\.type), Array(repeating: "snapshot", count: 4))
        XCTAssertEqual(Set(messages.compactMap(\.chart)), Set(live))
        XCTAssertEqual(core.metrics.snapshotsResent, 4)
        guard case .snapshot(let intake)? = messages.first(where: { $0.chart == "intake" }) else { return XCTFail("no intake snapshot") }
        XCTAssertEqual(intake.series[0].points.count, 60, "the rolling window, not the history")
        XCTAssertEqual(intake.seq, core.channelsByID["intake"]?.seq)
    }

    func testAViewerWithinTheLogGetsEveryAppendInOrder() throws {
        let viewer = try openViewer()
        for _ in 0..<50 { core.tick() }
        let messages = try drain(viewer)
        XCTAssertEqual(messages.count, 200)
        let appends = messages.compactMap { if case .append(let append) = $0 { return append }; return nil }
        XCTAssertEqual(appends.count, messages.count, "only appends")
        for chart in ["workouts", "intake", "expenses", "temperature"] {
            let seqs = appends.filter { $0.chart == chart }.map(\.seq)
            XCTAssertEqual(seqs.count, 50)
            XCTAssertEqual(seqs, seqs.sorted(), "\(chart) appends in seq order")
        }
    }

    func testSelectionChangesWhileAViewerIsBusyCoalesceToTheNewest() throws {
        let driver = try openViewer(), watcher = try openViewer()
        send(driver, viewport("sales"))
        for step in 0..<100 {
            send(driver, pointer("sales", .move, x: Double(50 + (step % 12) * 100), ref: "m-\(step)"))
        }
        let seen = selections(try drain(watcher))
        XCTAssertEqual(seen.count, 1, "one state, the newest")
        XCTAssertEqual(seen.first?.ref, "m-99")
        XCTAssertEqual(seen.first?.selection.hovers.first?.x, .category("April"))   // step 99: 99 % 12 = 3
        XCTAssertGreaterThanOrEqual(core.metrics.statesCoalesced, 98)
        XCTAssertGreaterThan(watcher.writeRequests, 0)
    }

    func testASelectionGoesOutBeforeOtherChartsDataAndAfterItsOwnChartsAppends() throws {
        let driver = try openViewer(), watcher = try openViewer()
        for _ in 0..<20 { core.tick() }   // appends waiting on four charts
        send(driver, viewport("sales"))
        send(driver, pointer("sales", .move, x: 130, ref: "first"))
        let first = try drain(watcher)
        guard case .selection(let update)? = first.first else { return XCTFail("\(first.first.map { "\($0)" } ?? "nothing") came first") }
        XCTAssertEqual(update.ref, "first", "the selection jumped the 80 waiting appends of the other charts")
        XCTAssertEqual(first.count, 81, "and those followed, none lost")
        // On a chart that also has appends waiting, the appends go first: seq only increases.
        send(driver, viewport("intake", width: 600))
        for _ in 0..<3 { core.tick() }
        send(driver, pointer("intake", .down, x: 100))
        send(driver, pointer("intake", .move, x: 300, ref: "second"))   // a range, on a chart that does not hover
        var lastSeq = [String: Int]()
        let second = try drain(watcher)
        for message in second {
            let (chart, seq): (String, Int)
            switch message {
            case .append(let append): (chart, seq) = (append.chart, append.seq)
            case .selection(let selection): (chart, seq) = (selection.chart, selection.seq)
            default: continue
            }
            XCTAssertGreaterThan(seq, lastSeq[chart] ?? -1, "\(chart) went back in seq")
            lastSeq[chart] = seq
        }
        let intake = second.compactMap { message -> String? in
            switch message {
            case .append(let append) where append.chart == "intake": return "append"
            case .selection(let selection) where selection.chart == "intake": return "selection"
            default: return nil
            }
        }
        XCTAssertEqual(intake, ["append", "append", "append", "selection"])
    }

    func testPointerEventsInOnePassWakeEachViewerOnceAtItsEnd() throws {
        let driver = try openViewer()
        let watchers = try (0..<50).map { _ in try openViewer() }
        send(driver, viewport("sales"))
        let before = watchers.map(\.writeRequests)
        for step in 0..<30 { send(driver, pointer("sales", .move, x: Double(50 + (step % 12) * 100))) }
        XCTAssertEqual(watchers.map(\.writeRequests), before, "no viewer is walked per event")
        core.finishServicePass()
        XCTAssertEqual(watchers.map(\.writeRequests), before.map { $0 + 1 }, "one wake per viewer for the whole pass")
        XCTAssertEqual(selections(try drain(watchers[0])).count, 1, "and the newest state")
        core.finishServicePass()
        XCTAssertEqual(watchers.map(\.writeRequests), before.map { $0 + 1 }, "a quiet pass wakes nobody")
    }

    func testPersonalFramesForAViewerThatNeverReadsStayBounded() throws {
        let flooder = try openViewer()
        for _ in 0..<2_000 { core.receive(.text(Array("{".utf8)), from: flooder) }   // malformed on purpose
        let queued = try XCTUnwrap(core.session(for: flooder)).pendingPersonalBytes
        XCTAssertLessThanOrEqual(queued, Session.maxPersonalFrames * 200)
        XCTAssertGreaterThan(core.metrics.personalFramesDropped, 0)
        XCTAssertEqual(try drain(flooder).count, Session.maxPersonalFrames)
    }

    func testOversizedMessageSendsTooLargeThenCloses1009AndNothingElse() throws {
        let viewer = try openViewer()
        core.messageTooLarge(on: viewer)
        core.tick()
        let messages = try drain(viewer)
        XCTAssertEqual(messages.map(\.type), ["error"])
        guard case .error(let error)? = messages.first else { return }
        XCTAssertEqual(error.code, .tooLarge)
        XCTAssertEqual(viewer.closedWith, 1009)
    }

    func testMorePendingIsTrueExactlyWhileSomethingIsLeft() throws {
        let viewer = try openViewer()
        XCTAssertNil(core.nextFrame(for: viewer).frame, "an up-to-date viewer gets nothing")
        // The tick comes in a pass of its own: the viewer's first snapshots, pulled above, do not
        // count against its share of chart data (`DataBudget`), however slow this build is.
        core.finishServicePass()
        core.tick()   // one append on each of the four live charts
        let pulls = (0..<5).map { _ in core.nextFrame(for: viewer) }
        XCTAssertEqual(pulls.map { $0.frame != nil }, [true, true, true, true, false])
        XCTAssertEqual(pulls.map(\.morePending), [true, true, true, false, false], "the last append says nothing follows")
    }

    func testViewerListsAreBatchedAndSparserForALargeCrowd() throws {
        XCTAssertEqual(ServerCore.viewersListInterval(viewers: 10), 0.2)
        XCTAssertEqual(ServerCore.viewersListInterval(viewers: 5_000), 2.0)
        for _ in 0..<1_000 { core.open(FakeConnection(id: 100_000 + core.viewerCount)) }
        let start: UInt64 = 1_000_000_000_000
        core.publishViewersIfNeeded(now: start)
        let published = core.currentViewersVersion
        core.open(FakeConnection(id: 900_000))
        core.publishViewersIfNeeded(now: start + 200_000_000)   // 0.2 s later: too soon for 1,001 viewers
        XCTAssertEqual(core.currentViewersVersion, published)
        core.publishViewersIfNeeded(now: start + 450_000_000)   // 0.45 s ≥ 1001 / 2500 s
        XCTAssertEqual(core.currentViewersVersion, published + 1)
        core.publishViewersIfNeeded(now: start + 900_000_000)   // nothing changed since
        XCTAssertEqual(core.currentViewersVersion, published + 1)
        let list = try viewerList()
        XCTAssertEqual(list.viewers.count, ServerCore.maxListedViewers)
        XCTAssertEqual(list.total, 1_001)
    }

    func testTheViewersListIsBoundedWhateverTheNamesAre() throws {
        // The largest names the rule lets through, in JSON: 40 four-byte scalars (160 bytes), and
        // 40 characters that JSON escapes (a quote or backslash is written as two bytes).
        let widest = [String(repeating: "🐙", count: 40), String(repeating: "\"", count: 40), String(repeating: "\\", count: 40)]
        var start: UInt64 = 1_000_000_000_000
        for index in 0..<(ServerCore.maxListedViewers + 6) {
            let viewer = try openViewer()
            send(viewer, .hello(.init(name: widest[index % widest.count], ref: nil)))
        }
        start += 10_000_000_000
        core.publishViewersIfNeeded(now: start)
        let frame = core.currentViewersFrame()
        let list = try viewerList()
        XCTAssertEqual(list.viewers.count, ServerCore.maxListedViewers)
        XCTAssertEqual(list.total, ServerCore.maxListedViewers + 6)
        XCTAssertTrue(list.viewers.allSatisfy { widest.contains($0.name) }, "every listed name is one of the widest")
        // 64 entries of at most 160 bytes of name (escaped: ≤ 2 × 80 for quotes) plus id and colour.
        let bound = ServerCore.maxListedViewers * (ProtocolLimits.v1.maxNameBytes + 64) + 64
        XCTAssertLessThanOrEqual(frame.bytes.count, bound, "viewers frame of \(frame.bytes.count) bytes")
        XCTAssertLessThanOrEqual(frame.bytes.count, ProtocolLimits.v1.maxMessageBytes / 4)
    }

    // MARK: Departures

    /// Opens a viewer with a viewport on `chart`, hovering its first category, and drains it.
    private func openHoveringViewer(on chart: String) throws -> FakeConnection {
        let viewer = try openViewer()
        send(viewer, viewport(chart))
        send(viewer, pointer(chart, .move, x: 50))
        _ = try drain(viewer)
        return viewer
    }

    func testDisconnectMidDragClearsTheRangeForTheOthers() throws {
        let owner = try openViewer(), other = try openViewer()
        send(owner, viewport("intake", width: 600))
        send(owner, pointer("intake", .down, x: 100))
        send(owner, pointer("intake", .move, x: 300))
        XCTAssertNotNil(selections(try drain(other)).last?.selection.range)
        core.close(owner)
        XCTAssertNil(core.channelsByID["intake"]?.engine.dragOwner)
        core.finishServicePass()
        let after = selections(try drain(other))
        XCTAssertEqual(after.count, 1)
        XCTAssertNil(after.last?.selection.range)
    }

    func testADepartureTouchesOnlyItsOwnState() throws {
        let viewers = try (0..<100).map { _ in try openViewer() }
        let sessions = viewers.map { core.session(for: $0)! }
        let slotsBefore = sessions.map(\.rosterSlot)
        let wakesBefore = viewers.map(\.writeRequests)
        let slotCount = core.roster.slotCount
        core.close(viewers[50])
        XCTAssertNil(core.session(for: viewers[50]))
        XCTAssertEqual(core.viewerCount, 99)
        XCTAssertEqual(core.roster.slotCount, slotCount, "a tombstone, nobody moved up")
        for index in viewers.indices where index != 50 {
            XCTAssertEqual(sessions[index].rosterSlot, slotsBefore[index], "viewer \(index) was renumbered")
            XCTAssertEqual(viewers[index].writeRequests, wakesBefore[index], "viewer \(index) was woken")
        }
        core.finishServicePass()
        XCTAssertEqual(viewers.map(\.writeRequests), wakesBefore, "no selection changed: nobody to wake")
        core.publishViewersIfNeeded(now: ServerCore.now() + 1_000_000_000)
        let list = try viewerList()
        XCTAssertEqual(list.total, 99, "the leave reaches the others with the batched list")
        XCTAssertFalse(list.viewers.contains { $0.id == sessions[50].info.id })
    }

    func testDeparturesInOnePassWakeTheOthersOnceWithOneSelection() throws {
        let stayers = try (0..<20).map { _ in try openViewer() }
        let hovering = try (0..<8).map { _ in try openHoveringViewer(on: "sales") }
        let quiet = try (0..<192).map { _ in try openViewer() }
        for viewer in stayers { _ = try drain(viewer) }
        let hovers = try XCTUnwrap(core.channelsByID["sales"]).engine.selection
        XCTAssertFalse("\(hovers)".isEmpty)
        let wakesBefore = stayers.map(\.writeRequests)
        let seqBefore = try XCTUnwrap(core.channelsByID["sales"]).seq
        for viewer in hovering + quiet { core.close(viewer) }
        XCTAssertEqual(stayers.map(\.writeRequests), wakesBefore, "200 departures woke nobody by themselves")
        XCTAssertEqual(core.channelsByID["sales"]?.seq, seqBefore, "nothing encoded per departure")
        core.finishServicePass()
        XCTAssertEqual(stayers.map(\.writeRequests), wakesBefore.map { $0 + 1 }, "one wake for the whole pass")
        XCTAssertEqual(core.channelsByID["sales"]?.seq, seqBefore + 1, "one new selection for the chart")
        let seen = selections(try drain(stayers[0]))
        XCTAssertEqual(seen.count, 1)
        XCTAssertEqual(seen.first?.chart, "sales")
        XCTAssertEqual(seen.first?.selection.hovers.count, 0, "every departed hover is gone")
        core.finishServicePass()
        XCTAssertEqual(stayers.map(\.writeRequests), wakesBefore.map { $0 + 1 }, "a quiet pass wakes nobody")
    }

    func testADepartureAfterWhichTheSelectionChangedAgainIsNotPublishedTwice() throws {
        let leaver = try openHoveringViewer(on: "sales")
        let driver = try openViewer(), watcher = try openViewer()
        core.close(leaver)
        send(driver, viewport("sales"))
        send(driver, pointer("sales", .move, x: 350))
        let seq = core.channelsByID["sales"]?.seq
        core.finishServicePass()
        XCTAssertEqual(core.channelsByID["sales"]?.seq, seq, "the driver's selection already shows the departure")
        let seen = selections(try drain(watcher))
        XCTAssertEqual(seen.count, 1)
        XCTAssertEqual(seen.first?.selection.hovers.map(\.by), [core.session(for: driver)!.info.id])
    }

    /// A trim that fires while a crowd is still leaving is followed by one after it left, so the
    /// rest of the exodus (fewer than the threshold) is handed back too; a quiet server never trims.
    func testATrimDuringAnExodusIsFollowedByOneWhenItEnds() throws {
        let second: UInt64 = 1_000_000_000
        var now = ServerCore.now()
        let crowd = try (0..<(ServerCore.trimAfterDepartures + 400)).map { _ in try openViewer() }
        XCTAssertFalse(core.trimMemoryIfNeeded(now: now), "nobody left: nothing to trim")
        for viewer in crowd.prefix(ServerCore.trimAfterDepartures + 100) { core.close(viewer) }
        XCTAssertTrue(core.trimMemoryIfNeeded(now: now), "the threshold was passed")
        for viewer in crowd.dropFirst(ServerCore.trimAfterDepartures + 100).prefix(200) { core.close(viewer) }
        now += 1 * second
        XCTAssertFalse(core.trimMemoryIfNeeded(now: now), "still leaving, and below the threshold")
        for viewer in crowd.suffix(100) { core.close(viewer) }
        now += UInt64(ServerCore.trimInterval) * second
        XCTAssertFalse(core.trimMemoryIfNeeded(now: now), "viewers left since the last sweep: the exodus goes on")
        now += 1 * second
        XCTAssertTrue(core.trimMemoryIfNeeded(now: now), "the exodus ended: the rest of it is trimmed")
        XCTAssertEqual(core.metrics.memoryTrims, 2)
        let late = try openViewer()
        core.close(late)
        for _ in 0..<3 {
            now += UInt64(ServerCore.trimInterval) * second
            XCTAssertFalse(core.trimMemoryIfNeeded(now: now), "one departure after a quiet trim is not an exodus")
        }
    }

    func testRosterRemovalMovesNobodyAndCompactionsAreRare() {
        final class Member: RosterMember {
            var rosterSlot = -1
            let number: Int
            init(_ number: Int) { self.number = number }
        }
        var roster = Roster<Member>()
        var remaining = (0..<1_000).map(Member.init)
        remaining.forEach { roster.append($0) }
        // Every third member first, then the rest from the front: gaps everywhere.
        let order = remaining.enumerated().sorted { ($0.offset % 3 != 0 ? 1 : 0, $0.offset) < ($1.offset % 3 != 0 ? 1 : 0, $1.offset) }
            .map(\.element)
        for member in order {
            let compactions = roster.compactions
            remaining.removeAll { $0 === member }
            let slotsBefore = remaining.map(\.rosterSlot)
            roster.remove(member)
            XCTAssertEqual(member.rosterSlot, -1)
            if roster.compactions == compactions {
                XCTAssertEqual(remaining.map(\.rosterSlot), slotsBefore, "a removal moved other members")
            } else {
                XCTAssertEqual(remaining.map(\.rosterSlot), Array(remaining.indices), "a compaction closes every gap")
            }
            XCTAssertEqual(roster.count, remaining.count)
            XCTAssertLessThanOrEqual(roster.slotCount, roster.count + max(roster.count, Roster<Member>.compactionThreshold - 1),
                                     "a walk visits at most twice the members")
        }
        XCTAssertEqual(Array(roster).count, 0)
        XCTAssertGreaterThan(roster.compactions, 0)
        XCTAssertLessThanOrEqual(roster.compactions, 6, "each compaction needs the roster to have halved: log2(1000 / 32) + 1")
        // Join order survives removals and compactions.
        var ordered = Roster<Member>()
        let members = (0..<200).map(Member.init)
        members.forEach { ordered.append($0) }
        members.filter { $0.number % 4 != 1 }.forEach { ordered.remove($0) }
        XCTAssertEqual(ordered.map(\.number), members.filter { $0.number % 4 == 1 }.map(\.number))
        XCTAssertEqual(ordered.prefix(3).map(\.number), [1, 5, 9])
    }

    func testEntryPointsCheckTheirThreadInDebugBuilds() throws {
        #if DEBUG
        var violations: [String] = []
        let lock = NSLock()
        core.onThreadViolation = { message in lock.lock(); violations.append(message); lock.unlock() }
        core.tick()
        XCTAssertEqual(violations, [], "the creating thread owns a core no server has attached")
        final class Answer: @unchecked Sendable { var owned = true }   // written before `done`, read after
        let done = DispatchSemaphore(value: 0), answer = Answer()
        let core = self.core!
        Thread {
            answer.owned = core.isOwningThread()
            core.publishViewersIfNeeded()
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertFalse(answer.owned)
        lock.lock()
        XCTAssertEqual(violations.count, 1)
        XCTAssertTrue(violations.first?.contains("publishViewersIfNeeded") ?? false, "\(violations)")
        lock.unlock()
        #else
        throw XCTSkip("the thread check is a debug-build assertion")
        #endif
    }
}

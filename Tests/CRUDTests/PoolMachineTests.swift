@_spi(CRUDDriver) @testable import CRUD
import Testing

/// The pool's decisions, event by event, with no database, thread or clock: a deadline that passes
/// or a task cancelled is the `giveUp` event.
@Suite("pool state machine")
struct PoolMachineTests {
    typealias Slot = CRUDSessionSlot

    typealias Machine = CRUDPoolMachine

    /// A machine behind a reference, so that its events read as plain calls, inside `#expect` too.
    @dynamicMemberLookup
    final class Pool {
        var machine: Machine
        init(layout: CRUDPoolLayout, open: [Slot]) { machine = Machine(layout: layout, open: open) }

        subscript<T>(dynamicMember state: KeyPath<Machine, T>) -> T { machine[keyPath: state] }
        func lease(_ access: CRUDAccess, hold: CRUDHold, opening: Bool = true) -> Machine.Lease {
            machine.lease(access, hold: hold, opening: opening)
        }
        func wait(for access: CRUDAccess, hold: CRUDHold, refusesSuspendedHolders: Bool) -> UInt64? {
            machine.wait(for: access, hold: hold, refusesSuspendedHolders: refusesSuspendedHolders)
        }
        func giveUp(_ id: UInt64) -> Bool { machine.giveUp(id) }
        func connectionOpened(_ slot: Slot, hold: CRUDHold) { machine.connectionOpened(slot, hold: hold) }
        func giveBack(_ slot: Slot, usable: Bool) -> Machine.Return { machine.giveBack(slot, usable: usable) }
        func openFailed(_ role: CRUDConnectionRole, hold: CRUDHold) -> Machine.Return { machine.openFailed(role, hold: hold) }
        func take(_ slot: Slot) -> Bool { machine.take(slot) }
        func shutDown(_ refusal: CRUDSQLExeError) -> Machine.ShutDown { machine.shutDown(refusal) }
        func surrender() -> Slot? { machine.surrender() }
    }

    static let shutDownError = CRUDSQLExeError("shut down", kind: .shutDown)

    /// The slot a lease got, or `nil` for a slot to open a connection in.
    static func granted(_ lease: Machine.Lease) -> Machine.Handover? {
        if case let .granted(handover) = lease { handover } else { nil }
    }

    static func slot(_ handover: Machine.Handover?) -> Slot? {
        if case let .slot(slot) = handover { slot } else { nil }
    }

    static func handing(_ returned: Machine.Return) -> Machine.Handing? {
        if case let .handed(handing) = returned { handing } else { nil }
    }

    @Test("a writer and readers: idle ones first, then new ones up to the limits, then waiters served in the order they came")
    func leasesAndWaits() throws {
        let writer = Slot(role: .writer)
        let machine = Pool(layout: .writerAndReaders(maxWriters: 1, maxReaders: 2), open: [writer])
        #expect(Self.slot(Self.granted(machine.lease(.write, hold: .brief))) === writer)
        guard case .unavailable = machine.lease(.write, hold: .brief) else { Issue.record("a second writer"); return }
        guard case .open(.reader) = Self.granted(machine.lease(.read, hold: .brief)) else { Issue.record("no reader to open"); return }
        guard case .unavailable = machine.lease(.read, hold: .brief, opening: false) else { Issue.record("opened without opening"); return }
        guard case .open(.reader) = Self.granted(machine.lease(.read, hold: .brief)) else { Issue.record("no second reader"); return }
        guard case .unavailable = machine.lease(.read, hold: .brief) else { Issue.record("a third reader"); return }
        #expect(machine.leased == 3)

        let first = try #require(machine.wait(for: .write, hold: .brief, refusesSuspendedHolders: false))
        let second = try #require(machine.wait(for: .write, hold: .brief, refusesSuspendedHolders: false))
        let reading = try #require(machine.wait(for: .read, hold: .brief, refusesSuspendedHolders: false))
        let handed = try #require(Self.handing(machine.giveBack(writer, usable: true)))
        #expect(handed.waiter == first)
        #expect(Self.slot(handed.handover) === writer)
        #expect(handed.access == .write)
        #expect(Self.handing(machine.giveBack(writer, usable: true))?.waiter == second)
        guard case .ended(drained: false) = machine.giveBack(writer, usable: true) else { Issue.record("not kept idle"); return }
        #expect(machine.idleWriters.count == 1 && machine.idleWriters[0] === writer)
        // A reader comes back: to the reader waiting, not to a writer.
        let reader = Slot(role: .reader)
        #expect(Self.handing(machine.giveBack(reader, usable: true))?.waiter == reading)
        #expect(machine.waiting == 0)
        #expect(machine.leased == 2)
    }

    @Test("a waiter that gave up (deadline, cancellation) is not served; one already served cannot give up")
    func givingUp() throws {
        let only = Slot(role: .general)
        let machine = Pool(layout: .interchangeable(minimum: 1, maximum: 1), open: [only])
        _ = machine.lease(.read, hold: .brief)
        let timedOut = try #require(machine.wait(for: .read, hold: .brief, refusesSuspendedHolders: false))
        let served = try #require(machine.wait(for: .write, hold: .brief, refusesSuspendedHolders: false))
        #expect(machine.giveUp(timedOut))
        #expect(!machine.giveUp(timedOut))
        #expect(Self.handing(machine.giveBack(only, usable: true))?.waiter == served)
        #expect(!machine.giveUp(served), "served: its handover is on its way")
        guard case .ended = machine.giveBack(only, usable: true) else { Issue.record("handed to a waiter that gave up"); return }
        #expect(machine.idle.count == 1)
    }

    @Test("a broken connection's slot goes to a waiter to open a new one in, or is freed; so does a slot whose open failed")
    func brokenConnections() throws {
        let first = Slot(role: .general)
        let machine = Pool(layout: .interchangeable(minimum: 1, maximum: 1), open: [first])
        _ = machine.lease(.read, hold: .brief)
        let waiter = try #require(machine.wait(for: .read, hold: .acrossSuspension, refusesSuspendedHolders: false))
        let handed = try #require(Self.handing(machine.giveBack(first, usable: false)))
        #expect(handed.waiter == waiter)
        guard case .open(.general) = handed.handover else { Issue.record("the broken connection handed on"); return }
        #expect(machine.suspendedHolds == [0, 1])
        // Its open fails too, and nobody waits: the slot is freed, and the next lease opens anew.
        guard case .ended(drained: false) = machine.openFailed(.general, hold: .acrossSuspension) else { Issue.record("not freed"); return }
        #expect(machine.opened == 0)
        #expect(machine.suspendedHolds == [0, 0])
        #expect(machine.leased == 0)
        guard case .open(.general) = Self.granted(machine.lease(.read, hold: .brief)) else { Issue.record("no slot to open"); return }
        let broken = Slot(role: .general)
        guard case .ended = machine.giveBack(broken, usable: false) else { Issue.record("a broken connection handed on"); return }
        #expect(machine.idle.isEmpty)
        #expect(machine.opened == 0)
    }

    @Test("a synchronous waiter inside a task is refused while a task holds a connection of its queue across suspension points")
    func wouldStall() throws {
        let writer = Slot(role: .writer)
        let machine = Pool(layout: .writerAndReaders(maxWriters: 1, maxReaders: 1), open: [writer])
        _ = machine.lease(.write, hold: .brief)
        // Queued while the holder is brief; then a task waiting across suspension points is served
        // first, and the synchronous waiter behind it is refused.
        let task = try #require(machine.wait(for: .write, hold: .acrossSuspension, refusesSuspendedHolders: false))
        let synchronous = try #require(machine.wait(for: .write, hold: .brief, refusesSuspendedHolders: true))
        let thread = try #require(machine.wait(for: .write, hold: .brief, refusesSuspendedHolders: false))
        let handed = try #require(Self.handing(machine.giveBack(writer, usable: true)))
        #expect(handed.waiter == task)
        #expect(handed.stalled == [synchronous])
        #expect(writer.heldAcrossSuspension)
        #expect(machine.suspendedHolds == [1, 0])
        // Now refused at once; a reader is another queue.
        #expect(machine.wait(for: .write, hold: .brief, refusesSuspendedHolders: true) == nil)
        #expect(machine.wait(for: .read, hold: .brief, refusesSuspendedHolders: true) != nil)
        #expect(Self.handing(machine.giveBack(writer, usable: true))?.waiter == thread)
        #expect(!writer.heldAcrossSuspension)
        #expect(machine.suspendedHolds == [0, 0])
    }

    @Test("shutting down fails the waiters, closes the idle connections, refuses leases, and drains with the last lease back")
    func shuttingDown() throws {
        let writer = Slot(role: .writer)
        let machine = Pool(layout: .writerAndReaders(maxWriters: 1, maxReaders: 2), open: [writer])
        _ = machine.lease(.write, hold: .brief)
        let waiter = try #require(machine.wait(for: .write, hold: .brief, refusesSuspendedHolders: false))
        _ = machine.lease(.read, hold: .brief)
        let reader = Slot(role: .reader)
        _ = machine.giveBack(reader, usable: true)
        #expect(machine.idle.count == 1)

        let done = machine.shutDown(Self.shutDownError)
        #expect(done.waiting == [waiter])
        #expect(done.closing.count == 1 && done.closing[0] === reader)
        #expect(!done.drained)
        #expect(machine.opened == 0)
        guard case .refused = machine.lease(.read, hold: .brief) else { Issue.record("a lease after the shutdown"); return }
        // The writer comes back: closed, not kept, and the pool has drained.
        guard case .ended(drained: true) = machine.giveBack(writer, usable: true) else { Issue.record("not drained"); return }
        #expect(machine.idleWriters.isEmpty)
        #expect(machine.writers == 0)
        #expect(machine.shutDown(Self.shutDownError).drained)
    }

    @Test("one shared connection: every caller gets it, uncounted; the shutdown hands it over to close")
    func single() {
        let only = Slot(role: .single)
        let machine = Pool(layout: .single, open: [only])
        #expect(Self.slot(Self.granted(machine.lease(.write, hold: .acrossSuspension))) === only)
        #expect(Self.slot(Self.granted(machine.lease(.read, hold: .brief))) === only)
        #expect(machine.leased == 0)
        #expect(machine.suspendedHolds == [0, 0])
        let done = machine.shutDown(Self.shutDownError)
        #expect(done.single === only)
        #expect(done.drained)
    }

    @Test("taking a given connection, and surrendering one to another pool")
    func takingAndSurrendering() {
        let first = Slot(role: .general), second = Slot(role: .general)
        let machine = Pool(layout: .interchangeable(minimum: 2, maximum: 2), open: [first, second])
        #expect(machine.take(second))
        #expect(!machine.take(second))
        #expect(machine.leased == 1)
        #expect(machine.surrender() === first)
        #expect(machine.opened == 1)
        _ = machine.shutDown(Self.shutDownError)
        #expect(machine.surrender() == nil)
    }

    @Test("a connection given back more often than leased stops the process")
    func givenBackTwice() async {
        await #expect(processExitsWith: .failure) {
            let writer = Slot(role: .writer)
            let machine = Pool(layout: .writerAndReaders(maxWriters: 1, maxReaders: 1), open: [writer])
            _ = machine.lease(.write, hold: .brief)
            _ = machine.giveBack(writer, usable: true)
            _ = machine.giveBack(writer, usable: true)
        }
    }

    @Test("20,000 random events: each connection has one holder or is idle, limits hold, nobody waits beside an idle connection, the counts agree")
    func randomEvents() throws {
        let maxWriters = 2, maxReaders = 3
        var numbers = SeededNumbers(state: 56)
        let machine = Pool(layout: .writerAndReaders(maxWriters: maxWriters, maxReaders: maxReaders), open: [])
        var made = 0
        // Who holds what: a slot, and whether across suspension points.
        var held: [(slot: Slot, hold: CRUDHold)] = []
        var waiting: [UInt64: (access: CRUDAccess, hold: CRUDHold)] = [:]
        var opening: [(role: CRUDConnectionRole, hold: CRUDHold)] = []

        func receive(_ handover: Machine.Handover, _ hold: CRUDHold) {
            switch handover {
            case let .slot(slot):
                #expect(!held.contains { $0.slot === slot }, "\(slot) handed to a second holder")
                held.append((slot, hold))
            case let .open(role):
                opening.append((role, hold))
            }
        }
        func returned(_ result: Machine.Return) {
            guard case let .handed(handing) = result else { return }
            guard let waiter = waiting.removeValue(forKey: handing.waiter) else {
                Issue.record("handed to \(handing.waiter), which does not wait")
                return
            }
            for id in handing.stalled { #expect(waiting.removeValue(forKey: id) != nil) }
            receive(handing.handover, waiter.hold)
        }

        /// What is wrong with the machine's state against the holders', waiters' and openers' own
        /// records, if anything.
        func violation() -> String? {
            let heldWriters = held.filter { $0.slot.role == .writer }.count + opening.filter { $0.role == .writer }.count
            let heldReaders = held.count + opening.count - heldWriters
            if machine.writers != machine.idleWriters.count + heldWriters { return "\(machine.writers) writers counted" }
            if machine.opened != machine.idle.count + heldReaders { return "\(machine.opened) readers counted" }
            if machine.writers > maxWriters || machine.opened > maxReaders { return "past the limits" }
            if machine.leased != held.count + opening.count { return "\(machine.leased) leases counted, \(held.count + opening.count) held" }
            if (machine.idleWriters + machine.idle).contains(where: { idle in held.contains { $0.slot === idle } }) { return "a held connection is idle" }
            if machine.waiting != waiting.count { return "\(machine.waiting) waiting, \(waiting.count) expected" }
            let across = held.filter { $0.hold == .acrossSuspension }.map { $0.slot.role == .writer ? 0 : 1 }
                + opening.filter { $0.hold == .acrossSuspension }.map { $0.role == .writer ? 0 : 1 }
            let holds = [across.filter { $0 == 0 }.count, across.filter { $0 == 1 }.count]
            if machine.suspendedHolds != holds { return "\(machine.suspendedHolds) held across suspension points, \(holds) expected" }
            // Nobody waits while a connection of its queue is idle or could be opened.
            for (_, waiter) in waiting {
                if waiter.access == .write, !machine.idleWriters.isEmpty || machine.writers < maxWriters { return "a writer waits needlessly" }
                if waiter.access == .read, !machine.idle.isEmpty || machine.opened < maxReaders { return "a reader waits needlessly" }
            }
            return nil
        }

        for step in 1 ... 20_000 {
            switch Int.random(in: 0 ..< 6, using: &numbers) {
            case 0, 1:
                let access: CRUDAccess = Bool.random(using: &numbers) ? .write : .read
                let hold: CRUDHold = Bool.random(using: &numbers) ? .brief : .acrossSuspension
                switch machine.lease(access, hold: hold) {
                case let .granted(handover): receive(handover, hold)
                case .unavailable:
                    let refuses = Int.random(in: 0 ..< 4, using: &numbers) == 0
                    if let id = machine.wait(for: access, hold: hold, refusesSuspendedHolders: refuses) { waiting[id] = (access, hold) }
                case .refused: Issue.record("refused before any shutdown")
                }
            case 2, 3:
                guard !held.isEmpty else { continue }
                let (slot, _) = held.remove(at: Int.random(in: 0 ..< held.count, using: &numbers))
                returned(machine.giveBack(slot, usable: Int.random(in: 0 ..< 5, using: &numbers) != 0))
            case 4:
                guard !opening.isEmpty else { continue }
                let (role, hold) = opening.removeFirst()
                if Int.random(in: 0 ..< 4, using: &numbers) == 0 {
                    returned(machine.openFailed(role, hold: hold))
                } else {
                    made += 1
                    let slot = Slot(role: role)
                    machine.connectionOpened(slot, hold: hold)
                    held.append((slot, hold))
                }
            default:
                guard let id = waiting.keys.randomElement(using: &numbers) else { continue }
                #expect(machine.giveUp(id))
                waiting[id] = nil
            }

            if let broken = violation() {
                Issue.record("after \(step) events: \(broken)")
                return
            }
        }
        #expect(made > 100, "the walk opened connections")
    }
}

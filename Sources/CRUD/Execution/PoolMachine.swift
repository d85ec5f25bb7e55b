/// The decisions of a connection pool (`CRUDConnectionPool`), apart from everything it does: which
/// caller gets which connection, who waits, who is refused, when a slot is free to open a
/// connection in, when the pool has drained. Events come in as calls; what to do comes back as
/// values, which the pool performs after unlocking (waking a thread, resuming a task, closing
/// connections). No locks, no clocks, no I/O: a waiter's deadline or cancellation is an event
/// (`giveUp`), so every order of events can be tested without a database or a thread.
///
/// Not generic: on the path of every call, a generic machine's enums were destroyed through value
/// witnesses. Its tests make sessions of the base class, which have no connection.
struct CRUDPoolMachine {
    typealias Slot = CRUDSessionSlot

    /// What a lease gets: a session to use, or the slot of a connection that broke or failed to
    /// open, to open a new connection in.
    enum Handover: Sendable {
        case slot(Slot)
        case open(CRUDConnectionRole)
    }

    /// What happens to a caller asking for a connection now.
    enum Lease {
        case granted(Handover)
        /// Nothing is free: the caller may wait (`wait`).
        case unavailable
        /// The pool is shut down (with `refusal`). Without the error: a lease is on the path of every
        /// call, and an enum carrying it was destroyed through a value witness there.
        case refused
    }

    /// A waiting caller, by the id `wait` gave it.
    struct Waiter {
        let id: UInt64
        let hold: CRUDHold
        /// A synchronous caller inside a task: refused rather than left waiting for a holder that
        /// needs a task to run again.
        let refusesSuspendedHolders: Bool
    }

    /// A handover to a waiter, and the waiters refused with it: handing a connection to a holder
    /// across suspension points refuses the synchronous waiters inside tasks in its queue.
    struct Handing {
        let waiter: UInt64
        let handover: Handover
        let stalled: [UInt64]
        /// What the queue served: writes for the writers' queue.
        let access: CRUDAccess
    }

    /// What happens to a connection or a slot that comes back.
    enum Return {
        /// Handed to a waiter.
        case handed(Handing)
        /// Kept idle, or its slot freed (the connection closes as its session goes); `drained`
        /// when that was the last lease after `shutDown`.
        case ended(drained: Bool)
    }

    /// What `shutDown` leaves to do.
    struct ShutDown {
        /// The waiters to fail with the refusal.
        var waiting: [UInt64] = []
        /// The idle connections, to close.
        var closing: [Slot] = []
        /// The shared connection of a `.single` layout, to close once its caller is done.
        var single: Slot?
        /// Whether no lease is out: the pool has drained already.
        var drained = false
    }

    let layout: CRUDPoolLayout
    private(set) var idleWriters: [Slot]
    /// Writers open or being opened.
    private(set) var writers: Int
    private(set) var idle: [Slot]
    /// Readers or general connections open or being opened.
    private(set) var opened: Int
    /// Waiters by queue: 0 for writers, 1 for every other connection.
    private var waiters: [[Waiter]] = [[], []]
    /// Leases held across suspension points, by queue.
    private(set) var suspendedHolds = [0, 0]
    private var nextWaiter: UInt64 = 0
    /// The session of a `.single` layout, shared by every caller in turn; `nil` once shut down.
    private(set) var shared: Slot?
    /// Set by `shutDown`: what every lease gets from then on.
    private(set) var refusal: CRUDSQLExeError?
    /// Leases not yet given back (of every layout but `.single`).
    private(set) var leased = 0

    /// - Parameter open: the connections open at the start, in the layout's first role
    ///   (`CRUDConnectionPool.firstRole(of:)`); at least one for a `.single` layout.
    init(layout: CRUDPoolLayout, open: [Slot]) {
        self.layout = layout
        switch layout {
        case .writerAndReaders:
            idleWriters = open
            idle = []
        case .interchangeable:
            idleWriters = []
            idle = open
        case .single:
            precondition(open.count == 1, "a pool of one shared connection starts with it")
            idleWriters = []
            idle = []
            shared = open[0]
        }
        writers = idleWriters.count
        opened = idle.count
    }

    /// Which waiter queue serves `access`, and which serves a session of `role`.
    private func queue(_ access: CRUDAccess) -> Int {
        if access == .write, case .writerAndReaders = layout { return 0 }
        return 1
    }

    private static func queue(_ role: CRUDConnectionRole) -> Int {
        role == .writer ? 0 : 1
    }

    /// How many are waiting, in both queues.
    var waiting: Int { waiters[0].count + waiters[1].count }

    // MARK: - Events

    /// A caller asks for `access`, to hold for `hold`: a session now, a slot to open one in (unless
    /// not `opening`), or nothing free.
    mutating func lease(_ access: CRUDAccess, hold: CRUDHold, opening: Bool = true) -> Lease {
        if refusal != nil { return .refused }
        guard let handover = available(access, opening: opening) else { return .unavailable }
        if case .slot = handover, case .single = layout { return .granted(handover) }
        leased += 1
        begin(hold, handover)
        return .granted(handover)
    }

    /// A caller that `lease` found nothing for waits, first come first served in its queue: its
    /// id, or `nil` when it `refusesSuspendedHolders` and a task holds one of the queue's
    /// connections across suspension points (it would wait for a task that cannot run).
    mutating func wait(for access: CRUDAccess, hold: CRUDHold, refusesSuspendedHolders: Bool) -> UInt64? {
        let queue = queue(access)
        if refusesSuspendedHolders, suspendedHolds[queue] > 0 { return nil }
        let id = nextWaiter
        nextWaiter += 1
        waiters[queue].append(Waiter(id: id, hold: hold, refusesSuspendedHolders: refusesSuspendedHolders))
        return id
    }

    /// Waiter `id` stops waiting (its deadline passed, its task was cancelled): `false` when it
    /// was served already, and a handover is on its way to it.
    mutating func giveUp(_ id: UInt64) -> Bool {
        for queue in waiters.indices {
            if let index = waiters[queue].firstIndex(where: { $0.id == id }) {
                waiters[queue].remove(at: index)
                return true
            }
        }
        return false
    }

    /// A connection opened in a slot handed over for `hold`.
    func connectionOpened(_ slot: Slot, hold: CRUDHold) {
        if hold == .acrossSuspension { slot.heldAcrossSuspension = true }
    }

    /// A leased `slot` comes back: to the first waiter of its queue, or idle when `usable` (else
    /// its slot, to a waiter to open a new connection in, or freed).
    mutating func giveBack(_ slot: Slot, usable: Bool) -> Return {
        if slot.heldAcrossSuspension {
            slot.heldAcrossSuspension = false
            suspendedHolds[Self.queue(slot.role)] -= 1
        }
        if let handing = handOver(usable ? .slot(slot) : .open(slot.role), queue: Self.queue(slot.role)) {
            return .handed(handing)
        }
        if usable, refusal == nil {
            if slot.role == .writer { idleWriters.append(slot) } else { idle.append(slot) }
        } else {
            forgetSlot(slot.role)
        }
        return .ended(drained: leaseEnded())
    }

    /// A connection handed over as a slot for `hold` failed to open: the slot goes to the next
    /// waiter, or is freed.
    mutating func openFailed(_ role: CRUDConnectionRole, hold: CRUDHold) -> Return {
        if hold == .acrossSuspension { suspendedHolds[Self.queue(role)] -= 1 }
        if let handing = handOver(.open(role), queue: Self.queue(role)) { return .handed(handing) }
        forgetSlot(role)
        return .ended(drained: leaseEnded())
    }

    /// A caller takes `slot` itself, when it is idle: `false` when someone holds it.
    mutating func take(_ slot: Slot) -> Bool {
        if let index = idleWriters.firstIndex(where: { $0 === slot }) {
            idleWriters.remove(at: index)
        } else if let index = idle.firstIndex(where: { $0 === slot }) {
            idle.remove(at: index)
        } else {
            return false
        }
        leased += 1
        return true
    }

    /// The pool shuts down with `refusal`: every lease is refused from now on, the waiters fail,
    /// the idle connections close. A second call changes nothing, but says whether it has drained.
    mutating func shutDown(_ refusal: CRUDSQLExeError) -> ShutDown {
        var done = ShutDown()
        if self.refusal == nil {
            self.refusal = refusal
            done.waiting = (waiters[0] + waiters[1]).map(\.id)
            waiters = [[], []]
            done.closing = idleWriters + idle
            for slot in done.closing { forgetSlot(slot.role) }
            idleWriters = []
            idle = []
            done.single = shared
            shared = nil
        }
        done.drained = leased == 0
        return done
    }

    /// Takes out the first idle connection (the shared one of a `.single` layout) to be handed to
    /// another pool, before shutting down; `nil` when none is idle.
    mutating func surrender() -> Slot? {
        guard refusal == nil else { return nil }
        let kept: Slot?
        switch layout {
        case .writerAndReaders:
            kept = idleWriters.popLast()
        case .interchangeable:
            kept = idle.isEmpty ? nil : idle.removeFirst()
        case .single:
            kept = shared
            shared = nil
        }
        if let kept { forgetSlot(kept.role) }
        return kept
    }

    // MARK: - Steps

    private mutating func available(_ access: CRUDAccess, opening: Bool) -> Handover? {
        switch layout {
        case .single:
            return .slot(shared!)
        case let .writerAndReaders(maxWriters, maxReaders, _):
            if access == .write {
                if let writer = idleWriters.popLast() { return .slot(writer) }
                if opening, writers < maxWriters {
                    writers += 1
                    return .open(.writer)
                }
                return nil
            }
            if let reader = idle.popLast() { return .slot(reader) }
            if opening, opened < maxReaders {
                opened += 1
                return .open(.reader)
            }
            return nil
        case let .interchangeable(_, maximum):
            if let slot = idle.popLast() { return .slot(slot) }
            if opening, opened < maximum {
                opened += 1
                return .open(.general)
            }
            return nil
        }
    }

    /// As a lease is granted: counts a hold across suspension points.
    private mutating func begin(_ hold: CRUDHold, _ handover: Handover) {
        guard hold == .acrossSuspension else { return }
        switch handover {
        case let .slot(slot):
            guard slot.role != .single else { return }
            slot.heldAcrossSuspension = true
            suspendedHolds[Self.queue(slot.role)] += 1
        case let .open(role):
            // The session does not exist yet: `connectionOpened(_:hold:)` marks it.
            suspendedHolds[Self.queue(role)] += 1
        }
    }

    /// Hands `handover` to the first waiter of `queue`, if any.
    private mutating func handOver(_ handover: Handover, queue: Int) -> Handing? {
        guard !waiters[queue].isEmpty else { return nil }
        let first = waiters[queue].removeFirst()
        begin(first.hold, handover)
        var stalled: [UInt64] = []
        if first.hold == .acrossSuspension, waiters[queue].contains(where: \.refusesSuspendedHolders) {
            stalled = waiters[queue].filter(\.refusesSuspendedHolders).map(\.id)
            waiters[queue].removeAll(where: \.refusesSuspendedHolders)
        }
        return Handing(waiter: first.id, handover: handover, stalled: stalled, access: queue == 0 ? .write : .read)
    }

    /// A slot of `role` is free again (its connection failed or was closed).
    private mutating func forgetSlot(_ role: CRUDConnectionRole) {
        switch role {
        case .writer: writers -= 1
        case .reader, .general: opened -= 1
        case .single: break
        }
    }

    /// A lease ends with no waiter to take it on: whether it was the last after `shutDown`.
    private mutating func leaseEnded() -> Bool {
        precondition(leased > 0, "a connection was given back to the pool more times than it was leased")
        leased -= 1
        return leased == 0 && refusal != nil
    }
}

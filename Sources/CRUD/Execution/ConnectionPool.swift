import Foundation

/// What a pooled connection is for.
@_spi(CRUDDriver) public enum CRUDConnectionRole: Sendable, CustomStringConvertible {
    /// A writer: every write and transaction (SQLite's one, one at a time; a PostgreSQL primary's).
    case writer
    /// A reader: queries outside transactions, concurrently with each other and with the writers
    /// (SQLite's on WAL; a PostgreSQL standby's).
    case reader
    /// A server connection: anything (PostgreSQL).
    case general
    /// The one connection of a database that cannot have more (SQLite `:memory:`), or a child's own.
    case single

    public var description: String {
        switch self {
        case .writer: "writer"
        case .reader: "reader"
        case .general: "general"
        case .single: "single"
        }
    }
}

/// How a driver wants its connections pooled.
@_spi(CRUDDriver) public enum CRUDPoolLayout: Sendable {
    /// Up to `maxWriters` writers and up to `maxReaders` readers: SQLite on WAL, whose one writer
    /// serializes writes in the process while reads run concurrently on snapshots; PostgreSQL with
    /// reads routed to standbys, which `readersLag` behind the primary. Writes and transactions take
    /// a writer, other reads a reader.
    case writerAndReaders(maxWriters: Int = 1, maxReaders: Int, readersLag: Bool = false)
    /// Between `minimum` and `maximum` interchangeable connections (PostgreSQL).
    case interchangeable(minimum: Int, maximum: Int)
    /// One connection that every caller shares in turn.
    case single
}

/// What an operation needs from the pool.
@usableFromInline
enum CRUDAccess: Sendable {
    case read, write
}

/// How long a lease is held, which decides whether a synchronous caller inside a task may wait for it.
@usableFromInline
enum CRUDHold: Sendable {
    /// Run to its end on one thread or queue without suspending: given back without needing any
    /// task to run again.
    case brief
    /// Held by a task across suspension points (an async transaction, a stream, a cursor opened in
    /// a task): given back only when that task runs again, on Swift's cooperative pool.
    case acrossSuspension
}

/// The connections of one database: leases them to one caller at a time, opens more up to the
/// layout's limits, replaces broken ones, and bounds how long a caller waits.
///
/// What to do is decided by its state machine (`CRUDPoolMachine`), under `lock`; the pool does it:
/// it blocks and wakes threads, suspends and resumes tasks, starts and cancels the waiters'
/// deadlines, opens connections, and calls back once it has drained.
///
/// Giving a connection back never blocks: it hands the session to the first waiter (or, for a
/// connection that broke, the right to open a new one, which the waiter uses in its own context),
/// or keeps it idle. A waiter gets a connection, a timeout error, or (a task) `CancellationError`.
///
/// A synchronous caller inside a task never waits for a connection that a task holds across a
/// suspension point: that task can give it back only when Swift's cooperative pool runs it again,
/// and with the pool's threads all blocked in such waits, nothing would. It is refused at once
/// instead (`wouldStall`).
///
/// It is not generic: it handles sessions through their non-generic base, so leasing runs as plain
/// code, without instantiating generic types at run time on every query.
///
/// `@unchecked Sendable`: every mutable property is guarded by `lock`, which also makes each access
/// exclusive, so they skip Swift's dynamic exclusivity checks (`@exclusivity(unchecked)`).
final class CRUDConnectionPool: @unchecked Sendable {
    typealias Session = CRUDSessionSlot
    typealias Machine = CRUDPoolMachine
    typealias Handover = Machine.Handover

    /// A thread blocked in the synchronous `lease`. `handover` is guarded by `condition`.
    private final class ThreadWaiter {
        let condition = NSCondition()
        var handover: Result<Handover, any Error>?
    }

    private enum Waiter {
        case thread(ThreadWaiter)
        /// A task's: called with the handover by whoever hands it over. It must not block.
        case callback(@Sendable (Result<Handover, any Error>) -> Void)
    }

    /// A session the pool opened, held weakly: it goes when the pool closes it.
    private struct OpenedSession {
        weak var session: Session?
    }

    let layout: CRUDPoolLayout
    /// How long a caller waits for a connection before `CRUDSQLExeError`.
    let timeout: Duration
    private let open: @Sendable (CRUDConnectionRole) throws -> CRUDSessionSlot
    /// The database, for messages.
    let describe: String

    private let lock = NSLock()
    @exclusivity(unchecked) private var machine: Machine
    /// The waiters the machine queues, by their ids.
    @exclusivity(unchecked) private var waiters: [UInt64: Waiter] = [:]
    /// Every session the pool opened, weakly: the idle ones and the leased ones. After `shutDown`
    /// the idle ones are gone, so those still here are leased, for `interruptLeased`.
    @exclusivity(unchecked) private var everyOpened: [OpenedSession] = []
    /// Whether `interruptLeased` was called: what the calls interrupted then throw is the shutdown's.
    @exclusivity(unchecked) private var interruptedLeased = false
    /// The timeouts of waiting tasks, cancelled when they are served.
    @exclusivity(unchecked) private var timers: [UInt64: CRUDTimer] = [:]
    /// Called when the last lease comes back after `shutDown`.
    @exclusivity(unchecked) private var drained: [@Sendable () -> Void] = []
    /// Where the waits for a connection and the counts of connections are recorded, if anywhere.
    private let instruments: CRUDInstruments?
    /// The tasks whose reads take writers now (`Database.readingFromPrimary`).
    let writerReadScopes = CRUDScopeCount()

    /// Whether readers may not yet see what writers committed (standbys behind their primary).
    var readersLag: Bool {
        if case let .writerAndReaders(_, _, readersLag) = layout { readersLag } else { false }
    }

    /// - Parameters:
    ///   - first: the session of an open connection to start with (the configuration opened it to
    ///     check the database can be reached), in the role `firstRole(of:)` gives; `nil` to open
    ///     every connection on first use (not for a `.single` layout).
    ///   - open: opens another connection for a role, in a session.
    init(layout: CRUDPoolLayout, first: CRUDSessionSlot?, timeout: Duration, describe: String, instruments: CRUDInstruments?,
         open: @escaping @Sendable (CRUDConnectionRole) throws -> CRUDSessionSlot) throws {
        self.layout = layout
        self.timeout = timeout
        self.describe = describe
        self.open = open
        self.instruments = instruments
        var sessions = first.map { [$0] } ?? []
        if case let .interchangeable(minimum, _) = layout, first != nil {
            for _ in 1 ..< max(1, minimum) {
                sessions.append(try open(.general))
            }
        }
        machine = Machine(layout: layout, open: sessions)
        everyOpened = sessions.map(OpenedSession.init)
        countsChanged()
    }

    /// The role the first connection of a layout takes.
    static func firstRole(of layout: CRUDPoolLayout) -> CRUDConnectionRole {
        switch layout {
        case .writerAndReaders: .writer
        case .interchangeable: .general
        case .single: .single
        }
    }

    // MARK: - Leasing

    /// Called holding `lock` after the counts of connections changed: records them, if the
    /// database has metrics. (A `.single` layout's one connection is not counted.)
    private func countsChanged() {
        guard let instruments, instruments.countsConnections else { return }
        switch layout {
        case .single: return
        case .writerAndReaders: instruments.connections(open: machine.opened + machine.writers, used: machine.leased)
        case .interchangeable: instruments.connections(open: machine.opened, used: machine.leased)
        }
    }

    /// When a wait for a connection starts, where waits are recorded; 0 otherwise.
    private func waitStarts() -> UInt64 {
        instruments == nil ? 0 : CRUDInstruments.now
    }

    /// Records a wait for a connection that `waitStarts` began, if it was recorded.
    private func waitEnded(_ started: UInt64) {
        if started != 0 { instruments?.waited(since: started) }
    }

    /// Called holding `lock`: the machine's answer to a lease, with the counts recorded when it
    /// granted one.
    private func grant(_ access: CRUDAccess, hold: CRUDHold, opening: Bool = true) -> Machine.Lease {
        let lease = machine.lease(access, hold: hold, opening: opening)
        if case .granted = lease { countsChanged() }
        return lease
    }

    /// The session a handover stands for: the one handed, or a new connection opened in the slot
    /// handed. A failed open frees the slot for the next waiter.
    private func session(for handover: Handover, hold: CRUDHold) throws -> Session {
        switch handover {
        case let .slot(session):
            return session
        case let .open(role):
            do {
                let session = try open(role)
                lock.withLock {
                    machine.connectionOpened(session, hold: hold)
                    everyOpened.removeAll { $0.session == nil }
                    everyOpened.append(OpenedSession(session: session))
                }
                return session
            } catch {
                let done = lock.withLock { perform(machine.openFailed(role, hold: hold)) }
                done()
                throw error
            }
        }
    }

    private func waitError(_ access: CRUDAccess) -> CRUDSQLExeError {
        let what = switch layout {
        case let .writerAndReaders(maxWriters, _, _):
            access == .write ? (maxWriters == 1 ? "the writer connection" : "a writer connection (all \(maxWriters) are in use)") : "a reader connection"
        case let .interchangeable(_, maximum): "a connection (all \(maximum) of the pool are in use)"
        case .single: "the connection"
        }
        return CRUDSQLExeError("timed out after \(timeout) waiting for \(what) of \(describe); "
            + "raise the pool's size or timeout, or hold connections for shorter (a long transaction or an unfinished cursor)",
            kind: .busyOrLocked)
    }

    private func wouldStall(_ access: CRUDAccess) -> CRUDSQLExeError {
        let what = switch layout {
        case let .writerAndReaders(maxWriters, _, _):
            access == .write ? (maxWriters == 1 ? "the writer connection" : "every writer connection") : "every reader connection"
        default: "every connection"
        }
        return CRUDSQLExeError("a synchronous call inside a task would wait for \(what) of \(describe), which another task holds "
            + "across a suspension point (an async transaction or stream): that task can give it back only when Swift's cooperative "
            + "pool runs it again, and threads blocked in such waits would keep it from running; use the async form "
            + "(`try await`) of this call inside tasks", kind: .busyOrLocked)
    }

    /// `access` as the caller's task needs it: a read inside `Database.readingFromPrimary` takes a
    /// writer. Until a task is inside one, no lease looks in its bindings.
    @inline(__always)
    private func routed(_ access: CRUDAccess) -> CRUDAccess {
        guard access == .read, writerReadScopes.any else { return access }
        let me = ObjectIdentifier(self)
        let onWriters = CRUDBindings.current.first { bound in
            if case let .writerReads(pool) = bound, pool == me { true } else { nil }
        }
        return onWriters == true ? .write : .read
    }

    /// Whether the caller is running a task: where a synchronous wait occupies a thread that tasks need.
    static var callerIsTask: Bool {
        withUnsafeCurrentTask { $0 != nil }
    }

    /// A session for `access`, held for `hold`, if one can be had without waiting, or `nil`: an idle
    /// one, or with `opening`, a new connection opened here (which blocks on a server's network:
    /// the async `lease` opens off the caller's thread).
    /// - Throws: the pool's refusal once it is shut down; what opening a connection throws.
    func leaseNow(_ access: CRUDAccess, hold: CRUDHold = .brief, opening: Bool = true) throws -> Session? {
        let access = routed(access)
        let started = waitStarts()
        lock.lock()
        guard case let .granted(handover) = grant(access, hold: hold, opening: opening) else {
            let refusal = machine.refusal
            lock.unlock()
            if let refusal { throw refusal }
            return nil
        }
        lock.unlock()
        defer { waitEnded(started) }
        return try session(for: handover, hold: hold)
    }

    /// A session for `access`, waiting up to `timeout` for one to be free. The caller gives it back
    /// with `giveBack`.
    /// - Throws: `CRUDSQLExeError` on timeout, when a new connection cannot be opened, or at once
    ///   when the caller is a task and would wait for a connection another task holds across a
    ///   suspension point.
    func lease(_ access: CRUDAccess, hold: CRUDHold = .brief) throws -> Session {
        let access = routed(access)
        let started = waitStarts()
        lock.lock()
        switch grant(access, hold: hold) {
        case let .granted(handover):
            lock.unlock()
            defer { waitEnded(started) }
            return try session(for: handover, hold: hold)
        case .refused:
            let refusal = machine.refusal!
            lock.unlock()
            throw refusal
        case .unavailable:
            break
        }
        guard let id = machine.wait(for: access, hold: hold, refusesSuspendedHolders: Self.callerIsTask) else {
            lock.unlock()
            throw wouldStall(access)
        }
        // Made only when the caller has to wait.
        let waiter = ThreadWaiter()
        waiters[id] = .thread(waiter)
        lock.unlock()

        let deadline = Date().addingTimeInterval(timeout.seconds)
        waiter.condition.lock()
        defer { waiter.condition.unlock() }
        var givenUp = false
        while waiter.handover == nil {
            if givenUp {
                // Taken off the queue by a giver, who hands over in a moment: the deadline no longer
                // applies (and a timed wait past it would not release the condition at all).
                waiter.condition.wait()
            } else if !waiter.condition.wait(until: deadline) {
                if lock.withLock({ giveUp(id) != nil }) { throw waitError(access) }
                givenUp = true
            }
        }
        defer { waitEnded(started) }
        return try session(for: waiter.handover!.get(), hold: hold)
    }

    /// The same, suspending the calling task instead of blocking a thread while it waits. A task
    /// cancelled while it waits stops waiting.
    /// - Throws: `CRUDSQLExeError` as the blocking form; `CancellationError` when the task is
    ///   cancelled while it waits.
    func lease(_ access: CRUDAccess, hold: CRUDHold) async throws -> Session {
        let handover = try await waitAsync(access, hold: hold) { result, continuation in
            continuation.resume(with: result)
        }
        // Opening a connection blocks: off the cooperative pool.
        if case .open = handover {
            let session = try await withCheckedThrowingContinuation { continuation in
                connectingQueue.async {
                    let opened = Result { try self.session(for: handover, hold: hold) }
                    // The new session goes to the task through the pool's lock as well as the
                    // continuation, whose ordering the runtime keeps out of ThreadSanitizer's sight
                    // when the task goes on inline on the library's threads.
                    self.lock.withLock {}
                    continuation.resume(with: opened)
                }
            }
            lock.withLock {}
            return session
        }
        return try session(for: handover, hold: hold)
    }

    /// Runs `job` with a session for `access` on that session's queue as soon as one is free, and
    /// resumes the caller with its result: between the handover and the job no task has to run, so
    /// such a lease never waits for Swift's cooperative pool. `job` gives the session back.
    /// - Throws: as the async `lease`, or what `job` throws.
    func run<T>(_ access: CRUDAccess, _ job: @escaping @Sendable (Session) throws -> T) async throws -> T {
        try await waitAsync(access, hold: .brief) { (result: Result<Handover, any Error>, continuation: CheckedContinuation<SendableResult<T>, any Error>) in
            switch result {
            case let .failure(error):
                continuation.resume(throwing: error)
            case let .success(.slot(session)):
                session.queue.async { continuation.resume(with: Result { SendableResult(value: try job(session)) }) }
            case let .success(handover):
                connectingQueue.async {
                    do {
                        let session = try self.session(for: handover, hold: .brief)
                        session.queue.async { continuation.resume(with: Result { SendableResult(value: try job(session)) }) }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }.value
    }

    /// Waits, suspended, for a handover for `access`, and passes it with the continuation to
    /// `deliver`, which must not block (it runs on the thread of whoever hands over).
    private func waitAsync<R>(_ access: CRUDAccess, hold: CRUDHold,
                              _ deliver: @escaping @Sendable (Result<Handover, any Error>, CheckedContinuation<R, any Error>) -> Void)
        async throws -> R {
        let access = routed(access)
        let ticket = WaitTicket()
        let started = waitStarts()
        let handOver = deliver
        let deliver: @Sendable (Result<Handover, any Error>, CheckedContinuation<R, any Error>) -> Void = { result, continuation in
            if case .success = result { self.waitEnded(started) }
            handOver(result, continuation)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                // A task cancelled before it asks takes nothing, not even a free connection.
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                lock.lock()
                switch grant(access, hold: hold) {
                case let .granted(handover):
                    lock.unlock()
                    deliver(.success(handover), continuation)
                    return
                case .refused:
                    let refusal = machine.refusal!
                    lock.unlock()
                    continuation.resume(throwing: refusal)
                    return
                case .unavailable:
                    break
                }
                // Checked again under the lock that the cancellation handler takes: a cancellation
                // either came before (and is seen here) or finds the ticket.
                guard !Task.isCancelled else {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                    return
                }
                // A task never refuses: it waits without holding a thread.
                let id = machine.wait(for: access, hold: hold, refusesSuspendedHolders: false)!
                ticket.id = id
                waiters[id] = .callback { deliver($0, continuation) }
                let timeout = self.timeout
                // Weakly: a cancelled timer's closure is kept until its time comes, and would keep
                // the pool, and its connections, that long.
                timers[id] = CRUDTimers.after(timeout) { [weak self] in
                    guard let self else { return }
                    if case let .callback(call) = self.lock.withLock({ self.giveUp(id) }) {
                        call(.failure(self.waitError(access)))
                    }
                }
                lock.unlock()
            }
        } onCancel: {
            let removed: Waiter? = lock.withLock { ticket.id.flatMap { giveUp($0) } }
            if case let .callback(call) = removed { call(.failure(CancellationError())) }
        }
    }

    /// Which waiter an async wait enqueued, for its cancellation handler. Guarded by the pool's
    /// `lock`. (`@unchecked Sendable`: that lock.)
    private final class WaitTicket: @unchecked Sendable {
        var id: UInt64?
    }

    /// Called holding `lock`: waiter `id` stops waiting (timed out, cancelled) and its timer is
    /// cancelled; `nil` when it was already served.
    private func giveUp(_ id: UInt64) -> Waiter? {
        timers.removeValue(forKey: id)?.cancel()
        guard machine.giveUp(id) else { return nil }
        return waiters.removeValue(forKey: id)
    }

    /// Takes `session` out of the pool when it is idle, for a caller that needs that very connection
    /// (`Insert.lastInsertId()`); `false` when someone else holds it. Give it back with `giveBack`.
    func take(_ session: Session) -> Bool {
        lock.withLock {
            guard machine.take(session) else { return false }
            countsChanged()
            return true
        }
    }

    /// Takes back a leased session: hands it to the first waiter for its role, or keeps it idle. A
    /// connection that broke (a server restart) is dropped, and its slot handed to a waiter, who
    /// opens a new connection in it. Never blocks. `usedHere`: the lease's statements ran on the
    /// calling thread, or in the calling task, whose steps are ordered, and none holds the session's
    /// gate any more; else they may have run on the session's queue, and its state is read under
    /// the gate.
    func giveBack(_ session: Session, usedHere: Bool = false) {
        guard session.role != .single else { return }
        if !usedHere { session.gate.lock() }
        let usable = session.transactionDepth == 0 && session.isUsable && !session.wantsReplacing
        let lost = session.transactionDepth == 0 && !session.isUsable
        if !usedHere { session.gate.unlock() }
        lock.lock()
        if lost {
            // Lost: the others may be too, so each asks the server before its next statement.
            for other in machine.idleWriters + machine.idle { other.probeBeforeUse = true }
        }
        let done = perform(machine.giveBack(session, usable: usable))
        lock.unlock()
        done()
    }

    /// Called holding `lock`: records what `returned` changed, and gives what performs the rest, to
    /// call after unlocking: handing over to a waiter, refusing those it stalls, or calling back
    /// those waiting for the pool to drain.
    private func perform(_ returned: Machine.Return) -> () -> Void {
        countsChanged()
        switch returned {
        case let .handed(handing):
            timers.removeValue(forKey: handing.waiter)?.cancel()
            let first = waiters.removeValue(forKey: handing.waiter)!
            let stalled = handing.stalled.compactMap { waiters.removeValue(forKey: $0) }
            return {
                Self.deliver(.success(handing.handover), to: first)
                for waiter in stalled { Self.deliver(.failure(self.wouldStall(handing.access)), to: waiter) }
            }
        case .ended(drained: true):
            let calls = drained
            drained = []
            return { for call in calls { call() } }
        case .ended:
            return {}
        }
    }

    // MARK: - Shutting down

    /// How many connections are leased now.
    var leasedCount: Int {
        lock.withLock { machine.leased }
    }

    /// Whether `shutDown` was called.
    var isShutDown: Bool {
        lock.withLock { machine.refusal != nil }
    }

    /// After `shutDown`, once its grace period has passed: interrupts the statement each leased
    /// session runs (`CRUDSessionSlot.interrupt()`), so that its call fails and gives the session
    /// back, which closes it. Interrupts sent between two statements stop nothing, so the caller
    /// repeats this until the pool drains. How many sessions were leased.
    func interruptLeased() -> Int {
        let sessions: [Session] = lock.withLock {
            guard machine.refusal != nil else { return [] }
            interruptedLeased = true
            everyOpened.removeAll { $0.session == nil }
            return everyOpened.compactMap(\.session)
        }
        for session in sessions { session.interrupt() }
        return sessions.count
    }

    /// Whether the pool interrupted its leased sessions' calls as it shut down.
    var interruptedAtShutdown: Bool {
        lock.withLock { interruptedLeased }
    }

    /// Shuts the pool with `refusal` as `shutDown` does, but hands over the session of its first
    /// idle connection instead of closing it: for an executor that another one takes the place of
    /// (`AnyDatabaseConfiguration`), which carries on with the connection. `nil` when none is idle.
    func surrender(_ refusal: CRUDSQLExeError) -> Session? {
        let kept = lock.withLock {
            defer { countsChanged() }
            return machine.surrender()
        }
        shutDown(refusal) {}
        return kept
    }

    /// Refuses every lease from now on with `refusal`, fails the callers waiting for one with it,
    /// and closes the idle connections (the shared one of a `.single` layout once its caller is
    /// done); the leased ones close as they come back. Calls `drained` when none is leased any
    /// more, at once if none is. A second call only adds its `drained`.
    func shutDown(_ refusal: CRUDSQLExeError, drained: @escaping @Sendable () -> Void) {
        lock.lock()
        // Released after unlocking: closing a connection may take a round trip.
        var done = machine.shutDown(refusal)
        let waiting = done.waiting.compactMap { waiters.removeValue(forKey: $0) }
        for timer in timers.values { timer.cancel() }
        timers = [:]
        countsChanged()
        if !done.drained { self.drained.append(drained) }
        lock.unlock()
        for waiter in waiting { Self.deliver(.failure(refusal), to: waiter) }
        done.closing.removeAll()
        guard done.drained else { return }
        guard let single = done.single else { return drained() }
        // The shared session's caller, if any, finishes first: waited for off the caller's thread.
        connectingQueue.async {
            single.gate.lock()
            single.gate.unlock()
            drained()
        }
    }

    private static func deliver(_ result: Result<Handover, any Error>, to waiter: Waiter) {
        switch waiter {
        case let .thread(thread):
            thread.condition.lock()
            thread.handover = result
            thread.condition.signal()
            thread.condition.unlock()
        case let .callback(call):
            call(result)
        }
    }
}

/// Where async callers' new connections are opened.
private let connectingQueue = DispatchQueue(label: "CRUD.connecting", attributes: .concurrent)

extension Duration {
    /// The duration in seconds, for Dispatch's and Foundation's deadlines (the drivers' too).
    @_spi(CRUDDriver) public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, at least 0.
    var nanoseconds: Int64 {
        max(0, components.seconds &* 1_000_000_000 &+ components.attoseconds / 1_000_000_000)
    }
}

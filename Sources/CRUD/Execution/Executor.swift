import Foundation
import Logging

/// Runs every operation of one database: takes a connection from the pool (or the one the current
/// transaction holds), runs the operation on it, and gives it back. The query chain only builds
/// plans; this is where they meet a connection.
///
/// Synchronous operations run on the calling thread. Asynchronous ones wait for a connection without
/// blocking a thread, then run on the connection's own queue, off Swift's cooperative pool, since
/// the drivers' C calls block; where the driver waits on no network (SQLite), on the caller's own
/// thread when a connection is free at once, bounded so that long reads leave it; and where the
/// driver can execute without blocking (PostgreSQL, MySQL), reads, one-statement writes and a
/// transaction's own statements run in the caller's task, which suspends until the server's answer
/// is in (`awaiting`).
///
/// A transaction holds one connection for its whole body. The body's own calls find it through a
/// task-local binding (which also holds on a thread outside any task), so they run inside the
/// transaction, while other tasks and threads never see it; the body's child tasks share it, one
/// call at a time (`CRUDSessionGate`).
///
/// Public for drivers, which make one for each configuration, and as the type of a database's
/// `_executor`: nothing in it is for users, and the documentation leaves it out.
@_documentation(visibility: internal)
public final class CRUDExecutor<Connection: CRUDConnection>: Sendable {
    typealias Session = CRUDSession<Connection>

    let pool: CRUDConnectionPool
    /// The database's `didFail`, which its children share.
    let failures: CRUDFailureHandler
    /// The database's observers, which its children share.
    let observation: CRUDObservationCenter
    /// How this database spells the SQL that differs between databases.
    @usableFromInline let dialect: any CRUDDialect
    /// The dialect as the select cache knows it.
    @usableFromInline let selectDialect: SelectCache.Dialect
    /// Opens another connection for a role: the pool's, a child's, one beside a transaction.
    let open: @Sendable (CRUDConnectionRole) throws -> Connection
    /// The metrics and tracer bootstrapped when the database was opened; `nil` when there are none.
    let instruments: CRUDInstruments?
    /// Which database and server this is, for metrics and traces.
    let peer: CRUDPeer
    /// How long a call's statements may run before they are cancelled, unless the task says
    /// otherwise (`Database.withStatementTimeout`); `nil` for no limit.
    let statementTimeout: Duration?
    /// The tasks inside this database's `withStatementTimeout` now.
    let timeoutScopes = CRUDScopeCount()
    /// Whether async calls run their statements on their own thread when a connection is free at
    /// once (`CRUDConnection.runsOnCallersThread`): known from the first connection, and `false`
    /// for an executor that opens its first on first use (a server's).
    let runsOnCallersThread: Bool
    /// Whether async reads run in the caller's own task, waiting for the server on events rather
    /// than on a thread (`CRUDConnection.executesWithoutBlocking`): the driver can, and connections
    /// are leased one caller at a time (not one shared by every caller, whose lock a suspended
    /// task could not hold).
    @usableFromInline let awaitsServer: Bool
    /// This database's use of the event loop its async reads wait on, where they do; ended at shutdown.
    let eventLoopUse: CRUDEventLoopUse?
    /// Whether the dialect's upsert names its conflict target (`CRUDDialect.upsertClause` gives a
    /// clause), so that an upsert is one statement a row; not MySQL's, which goes row by row.
    @usableFromInline let upsertsNameTarget: Bool

    /// For drivers: an executor over connections that `open` makes.
    /// - Parameters:
    ///   - layout: how connections are pooled.
    ///   - first: an open connection (the configuration opened it to check the database can be
    ///     reached); the pool starts with it.
    ///   - timeout: how long a caller waits for a free connection before `CRUDSQLExeError`.
    ///   - connectRetry: how long opening a connection keeps trying a server it cannot reach
    ///     (`CRUDReconnection`); zero tries once.
    ///   - describe: the database, for messages (`SQLite database at /path`).
    ///   - peer: which database and server it is, for metrics and traces.
    ///   - statementTimeout: how long a call's statements may run before they are cancelled.
    ///   - open: opens another connection for a role.
    /// - Throws: what `open` throws, for the connections a layout's minimum opens at once.
    @_spi(CRUDDriver) public convenience init(layout: CRUDPoolLayout, first: Connection, timeout: Duration, connectRetry: Duration = .zero,
                                              describe: String, peer: CRUDPeer = CRUDPeer(), statementTimeout: Duration? = nil,
                                              open: @escaping @Sendable (CRUDConnectionRole) throws -> Connection) throws {
        let failures = CRUDFailureHandler()
        try self.init(layout: layout, first: first, dialect: first.dialect, runsOnCallersThread: first.runsOnCallersThread,
                      executesWithoutBlocking: first.executesWithoutBlocking, timeout: timeout, describe: describe, peer: peer,
                      statementTimeout: statementTimeout, failures: failures,
                      observation: CRUDObservationCenter(failures: failures), open: Self.retrying(open, for: connectRetry))
    }

    /// For drivers: an executor that opens its first connection on first use, so that a server
    /// down when the program starts does not stop it.
    /// - Parameters:
    ///   - layout: how connections are pooled (not `.single`).
    ///   - dialect: the dialect of every connection `open` makes.
    ///   - timeout: how long a caller waits for a free connection before `CRUDSQLExeError`.
    ///   - connectRetry: how long opening a connection keeps trying a server it cannot reach
    ///     (`CRUDReconnection`); zero tries once.
    ///   - describe: the database, for messages.
    ///   - peer: which database and server it is, for metrics and traces.
    ///   - statementTimeout: how long a call's statements may run before they are cancelled.
    ///   - executesWithoutBlocking: what the connections' `executesWithoutBlocking` will say.
    ///   - open: opens a connection for a role.
    @_spi(CRUDDriver) public convenience init(layout: CRUDPoolLayout, dialect: any CRUDDialect, timeout: Duration, connectRetry: Duration,
                                              describe: String, peer: CRUDPeer = CRUDPeer(), statementTimeout: Duration? = nil,
                                              executesWithoutBlocking: Bool = false,
                                              open: @escaping @Sendable (CRUDConnectionRole) throws -> Connection) {
        let failures = CRUDFailureHandler()
        // Opens nothing, so it cannot throw.
        try! self.init(layout: layout, first: nil, dialect: dialect, runsOnCallersThread: false, executesWithoutBlocking: executesWithoutBlocking,
                       timeout: timeout, describe: describe, peer: peer,
                       statementTimeout: statementTimeout, failures: failures, observation: CRUDObservationCenter(failures: failures),
                       open: Self.retrying(open, for: connectRetry))
    }

    /// `open`, trying for up to `window` to reach the server.
    private static func retrying(_ open: @escaping @Sendable (CRUDConnectionRole) throws -> Connection,
                                 for window: Duration) -> @Sendable (CRUDConnectionRole) throws -> Connection {
        guard window > .zero else { return open }
        return { role in try CRUDReconnection.open(trying: window) { try open(role) } }
    }

    private init(layout: CRUDPoolLayout, first: Connection?, dialect: any CRUDDialect, runsOnCallersThread: Bool,
                 executesWithoutBlocking: Bool, timeout: Duration, describe: String, peer: CRUDPeer, statementTimeout: Duration?,
                 failures: CRUDFailureHandler,
                 observation: CRUDObservationCenter, open: @escaping @Sendable (CRUDConnectionRole) throws -> Connection) throws {
        self.failures = failures
        self.runsOnCallersThread = runsOnCallersThread
        if case .single = layout { awaitsServer = false } else { awaitsServer = executesWithoutBlocking }
        eventLoopUse = awaitsServer ? CRUDEventLoopUse() : nil
        self.observation = observation
        self.dialect = dialect
        selectDialect = SelectCache.Dialect(dialect)
        // A dialect's upsert clause is there or not whatever the columns: asked once, of any.
        upsertsNameTarget = dialect.upsertClause(target: [dialect.quote("id")], update: []) != nil
        self.open = open
        self.peer = peer
        self.statementTimeout = statementTimeout
        let instruments = CRUDInstruments.bootstrapped(system: dialect.name.lowercased(), peer: peer, pool: describe)
        self.instruments = instruments
        pool = try CRUDConnectionPool(
            layout: layout,
            first: first.map { Session($0, role: CRUDConnectionPool.firstRole(of: layout), observation: observation, instruments: instruments) },
            timeout: timeout, describe: describe, instruments: instruments
        ) { role in
            Session(try open(role), role: role, observation: observation, instruments: instruments)
        }
    }

    /// A session of this executor's over `connection`, outside the pool.
    func newSession(_ connection: Connection, role: CRUDConnectionRole) -> Session {
        Session(connection, role: role, observation: observation, instruments: instruments)
    }

    /// The pool's session as the connection's session: the pool only ever holds this executor's.
    @inline(__always)
    func typed(_ slot: CRUDSessionSlot) -> Session {
        unsafeDowncast(slot, to: Session.self)
    }

    // MARK: - Sessions

    /// The session the current transaction (or async operation) of this executor holds, if any.
    @usableFromInline
    func boundSession() -> CRUDSession<Connection>? {
        boundSession(in: CRUDBindings.current)
    }

    /// The session `bindings` bind to this executor, if any.
    func boundSession(in bindings: CRUDBindings) -> CRUDSession<Connection>? {
        let me = ObjectIdentifier(self)
        // Only this executor binds under its identity, and its sessions are all of this type.
        return bindings.first { bound in
            if case let .session(executor, session) = bound, executor == me { unsafeDowncast(session, to: CRUDSession<Connection>.self) } else { nil }
        }
    }

    /// The current bindings with `session` bound to this executor, after `outer`'s.
    func binding(_ session: Session, after outer: CRUDBindings = .current) -> CRUDBindings {
        outer.adding(.session(executor: ObjectIdentifier(self), session: session))
    }

    /// Runs `body` on a session for `access`, on this thread. A session leased from the pool is this
    /// caller's alone; a bound one (the transaction's) or a single shared one is used under its lock.
    @usableFromInline
    func withSession<T>(_ access: CRUDAccess, _ body: (CRUDSession<Connection>) throws -> T) throws -> T {
        try reporting {
            let bindings = CRUDBindings.current
            // Checked first, so that a database without timeouts pays two loads for them.
            if statementTimeout != nil || timeoutScopes.any {
                let timeout = statementTimeout(in: bindings)
                return try onSession(access, bindings) { session in try session.timingOut(after: timeout) { try body(session) } }
            }
            return try onSession(access, bindings, body)
        }
    }

    /// `withSession` within its boundary, the timeout settled.
    @inline(__always)
    private func onSession<T>(_ access: CRUDAccess, _ bindings: CRUDBindings, _ body: (CRUDSession<Connection>) throws -> T) throws -> T {
        if let bound = boundSession(in: bindings) { return try bound.locked { try body(bound) } }
        let session = typed(try pool.lease(access))
        if session.role == .single { return try session.locked { try body(session) } }
        defer { pool.giveBack(session, usedHere: true) }
        return try body(session)
    }

    /// The statement timeout of a call made with `bindings`: the task's for this database
    /// (`Database.withStatementTimeout`), else the database's.
    func statementTimeout(in bindings: CRUDBindings) -> Duration? {
        // Until a task is inside one, no call looks for one in its task's bindings.
        guard timeoutScopes.any else { return statementTimeout }
        let me = ObjectIdentifier(self)
        // Found, the task's timeout stands, `nil` (no limit) included.
        let scoped: Duration?? = bindings.first { bound in
            if case let .timeout(executor, timeout) = bound, executor == me { .some(timeout) } else { nil }
        }
        return scoped ?? statementTimeout
    }

    /// Runs `body` with the connection of a write session, made usable first, for a driver's calls
    /// beyond the chain.
    /// - Throws: `CRUDSQLExeError` when no usable connection can be had; what `body` throws.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        try withSession(.write) { session in
            try session.ensureUsable()
            return try body(session.connection)
        }
    }

    /// Runs `body` on `session` itself, if it can be had: it is the current transaction's, the single
    /// shared one, or idle in the pool. `nil` when someone else holds it.
    func withSessionItself<T>(_ session: CRUDSession<Connection>, _ body: () throws -> T) throws -> T? {
        try reporting {
            if boundSession() === session || session.role == .single { return try session.locked(body) }
            guard pool.take(session) else { return nil }
            defer { pool.giveBack(session) }
            return try body()
        }
    }

    /// Leases a session for `access` to a caller that keeps it across calls (a cursor, outside any
    /// transaction); the caller gives it back with `giveBack`.
    func lease(_ access: CRUDAccess, hold: CRUDHold) throws -> CRUDSession<Connection> {
        try reporting { typed(try pool.lease(access, hold: hold)) }
    }

    /// The same for a task that keeps the session across suspension points (a stream), waiting
    /// without holding a thread.
    func lease(_ access: CRUDAccess) async throws -> CRUDSession<Connection> {
        try await reporting { typed(try await pool.lease(access, hold: .acrossSuspension)) }
    }

    @usableFromInline
    func giveBack(_ session: CRUDSession<Connection>) {
        pool.giveBack(session)
    }

    /// Runs the synchronous `body` for an async caller: waits for a session without blocking a
    /// thread, then runs `body` on the session's queue with the session bound, so that what `body`
    /// calls runs on it too.
    ///
    /// Cancelling the task stops `body`'s running statement (`CRUDCancellation`), as does the
    /// statement timeout; `body` then throws `CancellationError`, or `CRUDSQLExeError` of kind
    /// `.timedOut`. Where `body` runs off the task's thread (on a session's queue, or a server's
    /// blocking call), a cancellation handler interrupts it (`interruptible`); where it runs on the
    /// task's own thread, the driver's statements and the cancellation look at the task themselves.
    ///
    /// It and the async frames it calls run on their caller's executor (`nonisolated(nonsending)`):
    /// the public async call that calls it has left any actor already, and each hop between two
    /// nonisolated frames asks the task's preferred executor, which under a cancellation handler
    /// takes the task's status lock (about 1,500 instructions of a SQLite lookup's 18,800).
    @usableFromInline
    nonisolated(nonsending) func perform<T>(_ access: CRUDAccess, _ body: @escaping () throws -> T) async throws -> T {
        // The boundary (`reporting`), written out: a call's every async frame costs it time.
        do {
            let bindings = CRUDBindings.current
            return try await performOnSession(access, bindings, CRUDCancellation(timeout: statementTimeout(in: bindings)), body)
        } catch let error as any CRUDReportableError where !error.isReported {
            throw report(error)
        }
    }

    /// Runs `part`, the part of a call that may run off its task's thread, under a cancellation
    /// handler: cancelling the task interrupts the statement it runs there.
    private nonisolated(nonsending) func interruptible<T>(_ cancellation: CRUDCancellation,
                                                          _ part: nonisolated(nonsending) () async throws -> T) async throws -> T {
        try await withTaskCancellationHandler {
            try await part()
        } onCancel: {
            cancellation.cancel(.cancelled)
        }
    }

    /// `perform` before its boundary: waits for the session, then runs `body` with it bound.
    /// `bindings` are the caller's, which the queue's thread, outside the task, is given too.
    private nonisolated(nonsending) func performOnSession<T>(_ access: CRUDAccess, _ bindings: CRUDBindings,
                                                             _ cancellation: CRUDCancellation,
                                                             _ body: @escaping () throws -> T) async throws -> T {
        if CRUDThreadMarker.isMarked {
            guard runsOnCallersThread else { return try await interruptible(cancellation) { try await performInline(access, cancellation, body) } }
            return try await performInline(access, cancellation, body)
        }
        if runsOnCallersThread { await CRUDCallerThread.takeTurn() }
        // The caller is suspended until `body` has run, and what `body` captures (a query's plan, a
        // copy of the caller's model values) is used by nothing else meanwhile.
        nonisolated(unsafe) let body = body
        if let bound = boundSession(in: bindings) {
            return try await interruptible(cancellation) {
                try await bound.perform(here: runsOnCallersThread) {
                    try CRUDBindings.$current.withValue(bindings) { try bound.running(cancellation, body) }
                }
            }
        }
        if runsOnCallersThread, let slot = try pool.leaseNow(access) {
            let session = typed(slot)
            guard session.role == .single else { return try await performHere(session, cancellation, bindings, body) }
            // Shared by every caller: here if no other holds it now, else on its queue.
            return try await interruptible(cancellation) {
                try await session.perform(here: true) { try self.call(body, on: session, after: bindings, cancellation) }
            }
        }
        nonisolated(unsafe) let job = instruments?.carryingContext(body) ?? body
        return try await interruptible(cancellation) {
            try await pool.run(access) { slot in
                let session = self.typed(slot)
                // Given back on the queue, the moment the work is done: waiting until this task runs again
                // would keep the connection from everyone else for as long as Swift's cooperative pool is
                // busy (with blocking work of the app's, that can be seconds).
                defer { self.pool.giveBack(session, usedHere: true) }
                return try session.locked { try self.call(job, on: session, after: bindings, cancellation) }
            }
        }
    }

    /// Runs `body`, an async caller's call, on `session` with the session bound after `bindings`.
    private func call<T>(_ body: () throws -> T, on session: Session, after bindings: CRUDBindings,
                         _ cancellation: CRUDCancellation) throws -> T {
        try CRUDBindings.$current.withValue(binding(session, after: bindings)) { try session.running(cancellation, body) }
    }

    /// Runs `body` on `session`, leased at once, right here on the caller's thread, where the
    /// driver runs on callers' threads, and gives the session back; its statements stop once the
    /// task is cancelled. A reader's statements are bounded: a read that runs past the driver's
    /// budget stops and runs again from the start on the session's queue, so long reads do not hold
    /// Swift's cooperative threads (the writer is one connection, so writes hold at most one of them).
    private nonisolated(nonsending) func performHere<T>(_ session: Session, _ cancellation: CRUDCancellation,
                                                        _ bindings: CRUDBindings,
                                                        _ body: @escaping () throws -> T) async throws -> T {
        beginCallersWork(on: session, cancellation, bounded: session.role == .reader)
        do {
            let result = try call(body, on: session, after: bindings, cancellation)
            _ = session.connection.endCallersWork()
            pool.giveBack(session, usedHere: true)
            return result
        } catch {
            guard session.connection.endCallersWork() else {
                pool.giveBack(session, usedHere: true)
                throw error
            }
        }
        // A read has no effects: what ran of it here is simply run again, and the session given back
        // on its queue as soon as it is done. The caller is suspended until then.
        cancellation.watchesTask = false
        nonisolated(unsafe) let body = body
        return try await interruptible(cancellation) {
            try await session.perform {
                defer { self.pool.giveBack(session) }
                return try self.call(body, on: session, after: bindings, cancellation)
            }
        }
    }

    /// For a task running on `CRUDThreads`: runs `body` right here, where blocking is allowed. Only
    /// waiting for a busy connection suspends the task, so no thread of the library's sits blocked
    /// behind another task's transaction. A driver that runs on callers' threads stops the
    /// statements once the task is cancelled; the others' are interrupted by the caller's handler.
    private nonisolated(nonsending) func performInline<T>(_ access: CRUDAccess, _ cancellation: CRUDCancellation,
                                                          _ body: () throws -> T) async throws -> T {
        if let bound = boundSession() { return try bound.locked { try runInline(body, on: bound, cancellation) } }
        var slot = try pool.leaseNow(access)
        // Handed over while the task is suspended: held until it runs again.
        if slot == nil { slot = try await pool.lease(access, hold: .acrossSuspension) }
        let session = typed(slot!)
        defer { pool.giveBack(session, usedHere: true) }
        return try CRUDBindings.$current.withValue(binding(session)) {
            session.role == .single ? try session.locked { try runInline(body, on: session, cancellation) } : try runInline(body, on: session, cancellation)
        }
    }

    /// Runs `body` under `cancellation` on `session`, which the caller holds, on the task's thread.
    private func runInline<T>(_ body: () throws -> T, on session: Session, _ cancellation: CRUDCancellation) throws -> T {
        guard runsOnCallersThread else { return try session.running(cancellation, body) }
        beginCallersWork(on: session, cancellation, bounded: false)
        defer { _ = session.connection.endCallersWork() }
        return try session.running(cancellation, body)
    }

    /// The call's statements on `session` from now on are its task's work on the task's own thread:
    /// the driver stops them once the task is cancelled (`beginCallersWork(bounded:)`, bounded too
    /// when `bounded`), and `cancellation` looks at the task; both or neither, or a cancelled task's
    /// call would go on or fail unexplained. The connection's `endCallersWork()` ends it.
    private func beginCallersWork(on session: Session, _ cancellation: CRUDCancellation, bounded: Bool) {
        cancellation.watchesTask = true
        session.connection.beginCallersWork(bounded: bounded)
    }

    // MARK: - Children

    /// An executor with one connection of its own, for `createChild()`; a database that can have
    /// only one connection (`:memory:`) shares it.
    func child() throws -> CRUDExecutor {
        if case .single = pool.layout { return self }
        return try reporting {
            // A child opens its connection itself, past the pool's refusal.
            guard !pool.isShutDown else { throw shutDownError }
            let first = try open(.single)
            return try CRUDExecutor(layout: .single, first: first, dialect: first.dialect, runsOnCallersThread: runsOnCallersThread,
                                    executesWithoutBlocking: false, timeout: pool.timeout, describe: "child",
                                    peer: peer, statementTimeout: statementTimeout, failures: failures, observation: observation, open: open)
        }
    }

    /// The session of an executor with one connection (a child's), for explicit transactions.
    func singleSession(for operation: String) throws -> Session {
        guard case .single = pool.layout else {
            throw CRUDSQLGenError(
                "\(operation) needs a connection of its own, and this database hands its connections to each operation in turn: "
                    + "call it on a child (let child = try db.createChild()), or use transaction { }")
        }
        return typed(try pool.lease(.write))
    }
}

/// The sessions that the current task or thread holds, one per executor at most: what transaction
/// bodies and async operations run their calls on; the task's logger (`CRUDLogging.withLogger`),
/// which goes with them to the library's threads; the task's statement timeouts
/// (`Database.withStatementTimeout`); and where its reads go (`Database.readingFromPrimary`).
struct CRUDBindings: Sendable {
    /// A session bound to an executor, or the task's logger, and the bindings made before it: a
    /// list, newest first, so that finding an executor's session copies nothing.
    final class Binding: Sendable {
        /// What the node binds.
        enum Bound: Sendable {
            case session(executor: ObjectIdentifier, session: any AnyObject & Sendable)
            case logger(Logger)
            /// The statement timeout of an executor's calls; `nil` for none.
            case timeout(executor: ObjectIdentifier, Duration?)
            /// A pool's reads take its writers (`Database.readingFromPrimary`).
            case writerReads(pool: ObjectIdentifier)
        }

        let bound: Bound
        let outer: Binding?

        init(_ bound: Bound, outer: Binding?) {
            self.bound = bound
            self.outer = outer
        }
    }

    /// The newest binding. A struct around one reference, not the optional itself and nothing
    /// more: the task-local's generic read copies its value through the type's value witness on
    /// every statement, and `Optional`'s generic one costs sixty instructions more than this
    /// type's own, a second reference thirty.
    let newest: Binding?

    /// The task's logger: the newest one bound.
    var taskLogger: Logger? {
        first { if case let .logger(logger) = $0 { logger } else { nil } }
    }

    /// What `pick` gives for the newest binding it gives something for: the walk every lookup in
    /// the bindings makes.
    @inline(__always)
    func first<T>(_ pick: (Binding.Bound) -> T?) -> T? {
        var binding = newest
        while let found = binding {
            if let picked = pick(found.bound) { return picked }
            binding = found.outer
        }
        return nil
    }

    /// These bindings with `bound` bound after them.
    func adding(_ bound: Binding.Bound) -> CRUDBindings {
        CRUDBindings(newest: Binding(bound, outer: newest))
    }

    @TaskLocal static var current = CRUDBindings(newest: nil)
}

extension CRUDExecutor where Connection == AnyCRUDConnection {
    /// An executor over `AnyCRUDConnection`s of `other`'s driver, pooled as `other`'s, which takes
    /// over `other`'s idle first connection and shuts `other`, whose callers are refused from then on.
    convenience init<Other: CRUDConnection>(erasing other: CRUDExecutor<Other>) throws {
        let refusal = CRUDSQLExeError(
            "this configuration was erased into an AnyDatabaseConfiguration, which now has its connections: use the AnyDatabase",
            kind: .shutDown)
        let open = other.open
        let layout = other.pool.layout
        other.eventLoopUse?.end()
        var first = (other.pool.surrender(refusal) as? CRUDSession<Other>).map { AnyCRUDConnection($0.connection) }
        // A pool of one shared connection starts with it; `other`'s was in use, or already closed.
        if first == nil, case .single = layout { first = AnyCRUDConnection(try open(.single)) }
        let failures = CRUDFailureHandler()
        try self.init(layout: layout, first: first, dialect: other.dialect, runsOnCallersThread: other.runsOnCallersThread,
                      executesWithoutBlocking: other.awaitsServer, timeout: other.pool.timeout,
                      describe: other.pool.describe, peer: other.peer, statementTimeout: other.statementTimeout, failures: failures,
                      observation: CRUDObservationCenter(failures: failures)) { role in AnyCRUDConnection(try open(role)) }
    }
}

import CLibPQ
@_spi(CRUDDriver) import CRUD
import Foundation

/// The server connections a database's sessions share (`PostgresDatabaseConfiguration`'s
/// `serverConnections`): at most `limit`, one opened for each session that joins until there are
/// `limit`, all closed with the last session.
///
/// A session takes a server connection for itself (`acquire`) for whatever depends on the server
/// session: a transaction (held from its `BEGIN` to its end, as the server reports it), writes,
/// preparations, catalog reads and every synchronous call. It takes any that no session holds, and
/// waits for a free one otherwise, so sessions never wait for one another while a server
/// connection is free. Async reads outside a transaction take none: each goes into the pipeline of
/// the least busy server connection no session holds or waits for (libpq's pipeline mode), with a
/// Sync of its own, so each runs in a transaction of its own and one failing fails no other; the
/// event loop's thread reads the answers as they come and hands each to its task, which decodes
/// the rows. A session waiting to hold a server connection whose pipeline has reads in flight
/// reserves it: it takes no more reads, and is the session's once they are answered.
///
/// `@unchecked Sendable`: everything, each server connection's shared state too, is guarded by
/// `lock`, but `deallocations`, guarded by `deallocationLock`; a held server connection's `handle`
/// is its holder's alone. The locks make every access exclusive, so the state skips Swift's
/// dynamic exclusivity checks, which cost a pipelined lookup some 1,100 instructions (callgrind).
final class PostgresServerConnections: @unchecked Sendable {
    let limit: Int
    private let parameters: [String: String]
    private let expandDatabase: Bool
    let lock = NSCondition()
    @exclusivity(unchecked) private var servers: [PostgresServerConnection] = []
    @exclusivity(unchecked) private var sessions = 0
    @exclusivity(unchecked) private var opening = 0
    /// Sessions waiting to hold a server connection, in order.
    @exclusivity(unchecked) private var waiting: [Waiter] = []
    /// Server connections granted to threads that wait on `lock`.
    @exclusivity(unchecked) private var granted: [ObjectIdentifier: PostgresServerConnection] = [:]
    /// Reads that wait for a server connection that takes reads.
    @exclusivity(unchecked) private var queued: [PostgresRead] = []
    /// What the first server connection reached.
    @exclusivity(unchecked) private var described: (target: String, peer: CRUDPeer)?
    /// Statements gone, to deallocate (`deallocate(_:preparedOn:)`): guarded by `deallocationLock`.
    @exclusivity(unchecked) private var deallocations: [(name: String, marks: [Int])] = []
    private let deallocationLock = NSLock()

    /// How many callers waited for a server connection, for their numbers.
    @exclusivity(unchecked) private var waitings = 0
    /// How long a caller waits for a server connection: the pool's timeout.
    let timeout: Duration
    /// How many reads were sent, for their serial numbers.
    @exclusivity(unchecked) private var reads = 0
    /// When a server connection last failed to connect again (`reconnectEnded`).
    @exclusivity(unchecked) private var lastFailedReconnect: ContinuousClock.Instant?
    /// Sessions whose threads waited for a server connection and were interrupted.
    @exclusivity(unchecked) private var refused: Set<ObjectIdentifier> = []
    /// The parameter types of each statement the server described, by its SQL: a session
    /// preparing it again needs no round trip, and prepares it where it first runs.
    @exclusivity(unchecked) private var parameterTypes: [String: [Oid]] = [:]
    static let describedCapacity = 1024

    private struct Waiter {
        let id: Int
        let session: ObjectIdentifier
        /// The one server connection the session waits for, when it wants that one alone.
        let only: PostgresServerConnection?
        /// The task to resume with its server connection; `nil` for a thread waiting on `lock`.
        let task: CheckedContinuation<PostgresServerConnection, any Error>?
    }

    /// `repairDelay`: how long a server connection stays unusable and idle before it is repaired
    /// (a test that needs one to wait for a session sets it long).
    init(limit: Int, parameters: [String: String], expandDatabase: Bool, timeout: Duration, repairDelay: Duration = .seconds(1)) {
        self.limit = max(1, limit)
        self.timeout = timeout
        self.repairDelay = repairDelay
        self.parameters = parameters
        self.expandDatabase = expandDatabase
    }

    // MARK: - Sessions

    /// A new session joins: a server connection opens for it while there are fewer than `limit`.
    /// - Throws: `CRUDSQLExeError` when the server connection cannot be opened.
    func join() throws {
        let index: Int? = lock.withLock {
            sessions += 1
            guard servers.count + opening < min(limit, sessions) else { return nil }
            opening += 1
            return servers.count + opening - 1
        }
        guard let index else { return }
        do {
            let server = try PostgresServerConnection(parameters: parameters, expandDatabase: expandDatabase, group: self, index: index)
            let description = PostgresConnection.describe(server.handle)
            let resumed: [() -> Void] = lock.withLock {
                if described == nil { described = description }
                opening -= 1
                servers.append(server)
                servers.sort { $0.index < $1.index }
                return admit()
            }
            for resume in resumed { resume() }
        } catch {
            lock.withLock {
                opening -= 1
                sessions -= 1
            }
            throw error
        }
    }

    /// A session is done; the server connections close with the last.
    func leave() {
        lock.withLock {
            sessions -= 1
            if sessions == 0, opening == 0 { servers.removeAll() }
        }
    }

    /// What the server connections point at, for messages and metrics: what the first reached.
    func describe() -> (target: String, peer: CRUDPeer) {
        lock.withLock { description }
    }

    /// Called under `lock`: what `describe()` gives.
    private var description: (target: String, peer: CRUDPeer) {
        described ?? ("PostgreSQL " + PostgresConnection.describe(parameters, expandDatabase: expandDatabase),
                      PostgresConnection.peer(parameters, expandDatabase: expandDatabase))
    }

    /// Whether `session`, holding `server`, is the one that held it before, so that no other
    /// session ran anything on it since (reads in the pipeline change no session state).
    func wasHeldBefore(_ server: PostgresServerConnection, by session: ObjectIdentifier) -> Bool {
        lock.withLock { server.previousOwner == session }
    }

    /// The parameter types of `sql` as the server described them before, if it did.
    func parameterTypes(of sql: String) -> [Oid]? {
        lock.withLock { parameterTypes[sql] }
    }

    /// The server described `sql`'s parameters as `types`.
    func described(_ sql: String, parameterTypes types: [Oid]) {
        lock.withLock {
            if parameterTypes.count >= Self.describedCapacity { parameterTypes.removeAll() }
            parameterTypes[sql] = types
        }
    }

    // MARK: - Holding

    /// A server connection for `session` alone (`only` that one, when given), blocking the thread
    /// until one is free, at most the pool's timeout.
    /// - Throws: `CRUDSQLExeError` when the session's call was interrupted while it waited, on
    ///   timeout, and at once when the caller is a task and would wait for a server connection
    ///   another task holds (which gives it back only when Swift's cooperative pool runs it again).
    func acquire(for session: ObjectIdentifier, only: PostgresServerConnection? = nil) throws -> PostgresServerConnection {
        lock.lock()
        if waiting.isEmpty, let free = free(only) {
            defer { lock.unlock() }
            return grant(free, to: session, awaiting: false)
        }
        if withUnsafeCurrentTask(body: { $0 != nil }), servers.contains(where: { $0.owner != nil && $0.ownerAwaits }) {
            lock.unlock()
            throw wouldStall
        }
        waitings += 1
        let id = waitings
        waiting.append(Waiter(id: id, session: session, only: only, task: nil))
        reserve()
        let deadline = Date().addingTimeInterval(timeout.seconds)
        while granted[session] == nil, !refused.contains(session) {
            if !lock.wait(until: deadline), granted[session] == nil, !refused.contains(session) {
                let resumed = giveUp(id)
                lock.unlock()
                for resume in resumed { resume() }
                throw timedOut
            }
        }
        defer { lock.unlock() }
        if refused.remove(session) != nil { throw Self.interruptedWaiting }
        return granted.removeValue(forKey: session)!
    }

    private static let interruptedWaiting = CRUDSQLExeError("the call was interrupted while it waited for a server connection")

    /// What a caller that waited too long for a server connection throws.
    private var timedOut: CRUDSQLExeError {
        CRUDSQLExeError("timed out after \(timeout) waiting for one of the \(limit) server connections the pool's sessions share "
            + "(each held by a transaction or a call, or busy with reads); raise serverConnections, or the pool's timeout",
                        kind: .busyOrLocked)
    }

    /// What a synchronous caller inside a task throws rather than wait.
    private var wouldStall: CRUDSQLExeError {
        CRUDSQLExeError("a synchronous call inside a task would wait for a server connection that another task holds across a "
            + "suspension point (an async transaction or call, or the pool's own reconnect): that task can give it back only when "
            + "Swift's cooperative pool runs it again, and threads blocked in such waits would keep it from running; use the async "
            + "form (`try await`) of this call inside tasks", kind: .busyOrLocked)
    }

    /// Called under `lock`: the waiter `id` stops waiting; what to call after unlocking.
    private func giveUp(_ id: Int) -> [() -> Void] {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return [] }
        let waiter = waiting.remove(at: index)
        for server in servers where server.reservedFor == waiter.session { server.reservedFor = nil }
        return admit()
    }

    /// `acquire(for:only:)` suspending the task rather than blocking its thread.
    /// - Throws: `CRUDSQLExeError` when the session's call was interrupted while it waited, or on timeout.
    nonisolated(nonsending) func acquire(for session: ObjectIdentifier, only: PostgresServerConnection? = nil) async throws -> PostgresServerConnection {
        try await withCheckedThrowingContinuation { (task: CheckedContinuation<PostgresServerConnection, any Error>) in
            lock.lock()
            if waiting.isEmpty, let free = free(only) {
                let server = grant(free, to: session, awaiting: true)
                lock.unlock()
                return task.resume(returning: server)
            }
            waitings += 1
            let id = waitings
            waiting.append(Waiter(id: id, session: session, only: only, task: task))
            reserve()
            lock.unlock()
            CRUDTimers.after(timeout) { [weak self] in
                guard let self else { return }
                let (failed, resumed) = lock.withLock { () -> (CheckedContinuation<PostgresServerConnection, any Error>?, [() -> Void]) in
                    let task = waiting.first(where: { $0.id == id })?.task
                    return (task, task == nil ? [] : giveUp(id))
                }
                failed?.resume(throwing: timedOut)
                for resume in resumed { resume() }
            }
        }
    }

    /// `session` is done with `server`, which it keeps while the server has a transaction open on
    /// it (or a statement running): the transaction is that session's. Whether it let it go.
    func release(_ server: PostgresServerConnection, by session: ObjectIdentifier) -> Bool {
        let resumed: [() -> Void]? = lock.withLock {
            guard server.owner == session else { return [] }
            let status = PQtransactionStatus(server.handle)
            guard status != PQTRANS_INTRANS, status != PQTRANS_INERROR, status != PQTRANS_ACTIVE else { return nil }
            server.owner = nil
            return admit()
        }
        for resume in resumed ?? [] { resume() }
        return resumed != nil
    }

    /// Called under `lock`: a server connection no session holds, reserves or reads on (`only` that
    /// one), working ones first.
    private func free(_ only: PostgresServerConnection?) -> PostgresServerConnection? {
        var idle: PostgresServerConnection?
        for server in servers where (only == nil || only === server) && server.owner == nil && server.reservedFor == nil && server.isFree {
            if server.isWorking { return server }
            if idle == nil { idle = server }
        }
        return idle
    }

    /// Called under `lock`: `server` is `session`'s, out of pipeline mode, which libpq's synchronous
    /// calls refuse; `awaiting` when taken by a task.
    private func grant(_ server: PostgresServerConnection, to session: ObjectIdentifier, awaiting: Bool) -> PostgresServerConnection {
        server.owner = session
        server.ownerAwaits = awaiting
        server.previousOwner = server.lastOwner
        server.lastOwner = session
        // Its holder waits on the event loop for itself; a watch armed before is not the group's now.
        server.watched = false
        if PQpipelineStatus(server.handle) != PQ_PIPELINE_OFF { PQexitPipelineMode(server.handle) }
        return server
    }

    /// Called under `lock`: the first waiter that has no server connection reserved reserves the
    /// least busy one no session holds, so that it takes no more reads and is the waiter's once
    /// they are answered.
    private func reserve() {
        for waiter in waiting where !servers.contains(where: { $0.reservedFor == waiter.session }) {
            var least: PostgresServerConnection?
            for server in servers where (waiter.only == nil || waiter.only === server) && server.owner == nil && server.reservedFor == nil {
                if least.map({ server.inFlight.count < $0.inFlight.count }) ?? true { least = server }
            }
            least?.reservedFor = waiter.session
        }
    }

    /// Called under `lock` when a server connection was let go, answered its last read, or opened:
    /// grants each one free to the waiter that reserved it or the first waiter, reserves for the
    /// others, and sends waiting reads to those that take reads. Returns what to call after unlocking.
    private func admit() -> [() -> Void] {
        var resumed: [() -> Void] = []
        for server in servers where server.owner == nil && server.isFree {
            let index = server.reservedFor.flatMap { reserved in waiting.firstIndex { $0.session == reserved } }
                ?? waiting.firstIndex { $0.only == nil || $0.only === server }
            guard let index else { continue }
            let waiter = waiting.remove(at: index)
            // Free of the waiter's reservation, here or on another one that is still busy.
            for reserved in servers where reserved.reservedFor == waiter.session { reserved.reservedFor = nil }
            _ = grant(server, to: waiter.session, awaiting: waiter.task != nil)
            if let task = waiter.task {
                resumed.append { task.resume(returning: server) }
            } else {
                granted[waiter.session] = server
                lock.broadcast()
            }
        }
        reserve()
        queueDeallocations()
        resumed += repairs()
        for server in servers where takesReads(server) {
            for (name, generation) in server.pendingDeallocations where generation == server.generation {
                let command = "DEALLOCATE \(name)"
                if let failed = send(PostgresRead(serial: 0, session: ObjectIdentifier(self), statement: nil, command: command), on: server) {
                    resumed.append(failed)
                }
            }
            server.pendingDeallocations.removeAll()
        }
        while !queued.isEmpty, let server = readTarget() {
            if let failed = send(queued.removeFirst(), on: server) { resumed.append(failed) }
        }
        if !queued.isEmpty, !readsHaveServer {
            // Nothing would send them: their callers hold server connections, which connect again.
            let callers = queued.compactMap(\.task)
            queued.removeAll()
            resumed.append { for task in callers { task.resume(returning: nil) } }
        }
        return resumed
    }

    // MARK: - Repairing

    /// Called under `lock`: the server connections that were lost or ended by the server, and that
    /// no session holds, waits for or reads on, connect again in tasks of their own, held by the
    /// group meanwhile: reads wait for them, rather than for a session that would hold one and
    /// reconnect it, which a service that only reads might never have. Not at once, and not while
    /// reconnects fail: a session waiting for a server connection would wait behind the repair
    /// too, and in an outage (the server down, or a host that never answers) that is a connect
    /// timeout more. So a server connection is repaired once it stayed unusable and idle for
    /// `repairDelay`, and no reconnect failed for `repairPause`; until then sessions reconnect those
    /// they hold, or say why they cannot. Returns what to call after unlocking.
    private func repairs() -> [() -> Void] {
        guard sessions > 0 else { return [] }
        var started: [() -> Void] = []
        for server in servers where server.owner == nil && server.reservedFor == nil && server.isFree {
            guard server.broken || !server.isWorking else {
                server.repairDue = nil
                continue
            }
            let now = ContinuousClock.now
            guard let due = server.repairDue else {
                server.repairDue = now + repairDelay
                admitAgain(after: repairDelay)
                continue
            }
            guard now >= due, lastFailedReconnect.map({ now - $0 >= Self.repairPause }) ?? true else { continue }
            server.repairDue = nil
            _ = grant(server, to: ObjectIdentifier(self), awaiting: true)
            let target = description.target
            // Detached: what starts it may run in a task whose task-locals (a bound session) are its own.
            started.append { Task.detached { await self.repair(server, target: target) } }
        }
        return started
    }

    /// `admit()` once more after `delay`, for the repairs that wait.
    private func admitAgain(after delay: Duration) {
        CRUDTimers.after(delay) { [weak self] in
            guard let self else { return }
            let resumed = lock.withLock { admit() }
            for resume in resumed { resume() }
        }
    }

    /// Connects `server`, which the group holds, again; then lets it go.
    private func repair(_ server: PostgresServerConnection, target: String) async {
        try? await server.reconnectAwaiting(target: target, stepTimeout: server.connectTimeout ?? Self.repairStepTimeout)
        let resumed: [() -> Void] = lock.withLock {
            server.owner = nil
            return admit()
        }
        for resume in resumed { resume() }
    }

    /// A server connection of the group tried to connect again (a session's, or a repair): a
    /// failure holds the repairs back for `repairPause`.
    func reconnectEnded(succeeded: Bool) {
        lock.withLock { lastFailedReconnect = succeeded ? nil : .now }
        if !succeeded { admitAgain(after: Self.repairPause) }
    }

    /// How long a repair waits for the server at each step when the connection names no
    /// `connect_timeout`: a task of the group's own must not wait for a silent host for ever.
    static let repairStepTimeout = Duration.seconds(10)
    /// How long after a failed reconnect no repair is tried.
    static let repairPause = Duration.seconds(5)
    /// How long a server connection stays unusable and idle before it is repaired.
    let repairDelay: Duration

    // MARK: - Pipelined reads

    /// Called under `lock`: whether `server` takes reads now.
    private func takesReads(_ server: PostgresServerConnection) -> Bool {
        server.owner == nil && server.reservedFor == nil && server.isWorking && !server.broken
    }

    /// Called under `lock`: whether a read can wait for a server connection: one takes reads, or
    /// will once its holder lets it go. Otherwise the read's caller holds one, which connects again.
    private var readsHaveServer: Bool {
        servers.contains { $0.owner != nil || $0.reservedFor != nil || takesReads($0) }
    }

    /// Called under `lock`: of the server connections that take reads, the first with fewer than
    /// `batch` in flight, else the least busy: reads gather on few, where the server runs them back
    /// to back.
    private func readTarget() -> PostgresServerConnection? {
        var least: PostgresServerConnection?
        for server in servers where takesReads(server) {
            if server.inFlight.count < Self.batch { return server }
            if least.map({ server.inFlight.count < $0.inFlight.count }) ?? true { least = server }
        }
        return least
    }

    /// How many reads fill a server connection's pipeline before the next takes reads.
    static let batch = 8
    /// How many reads in flight go with a Sync each, at once; those after them wait for the next.
    static let sentAtOnce = 4

    /// Runs `statement`, bound, a read of `session` outside a transaction, in a pipeline: sent at
    /// once to a server connection that takes reads, or when one does. `nil` when no server
    /// connection works: the caller then holds one, which reconnects it.
    /// - Throws: `CRUDSQLExeError` when the connection is lost; a cancelled read that the server had
    ///   not reached yet throws without waiting for it.
    nonisolated(nonsending) func read(_ statement: PostgresStatement, for session: ObjectIdentifier) async throws -> PostgresAnswer? {
        try await withUnsafeThrowingContinuation { (task: UnsafeContinuation<PostgresAnswer?, any Error>) in
            lock.lock()
            reads += 1
            let read = PostgresRead(serial: reads, session: session, statement: statement, command: statement.sql, task: task)
            // A held server connection's status is its holder's to read; held, it will take reads again.
            guard readsHaveServer else {
                lock.unlock()
                return task.resume(returning: nil)
            }
            let failed: (() -> Void)?
            if let server = readTarget() {
                failed = send(read, on: server)
            } else {
                queued.append(read)
                failed = nil
            }
            lock.unlock()
            failed?()
        }
    }

    /// Frees what the server connections keep for a statement prepared as `name` on each of them
    /// (`marks`: by index, the generation it was prepared in, plus one), through their pipelines,
    /// nobody waiting for it. A statement goes when its last reference does, which may be a read
    /// handled under `lock`: the names wait under a lock of their own, for the next send.
    func deallocate(_ name: String, preparedOn marks: [Int]) {
        deallocationLock.withLock { deallocations.append((name, marks)) }
    }

    /// Called under `lock`: the deallocations that wait, each queued on the server connections it
    /// was prepared on, to send once they take reads.
    private func queueDeallocations() {
        let names = deallocationLock.withLock {
            defer { deallocations.removeAll() }
            return deallocations
        }
        for (name, marks) in names {
            for server in servers where server.holdsPreparation(marked: marks) {
                server.pendingDeallocations.append((name, server.generation))
            }
        }
    }

    /// Called under `lock`: sends `read` and its Sync to `server`, its statement's preparation first
    /// where the statement is not prepared there yet; what to call after unlocking when that failed.
    private func send(_ read: PostgresRead, on server: PostgresServerConnection) -> (() -> Void)? {
        let handle = server.handle
        if PQpipelineStatus(handle) == PQ_PIPELINE_OFF, PQenterPipelineMode(handle) != 1 { return fail(read, on: server) }
        var read = read
        if let statement = read.statement, !statement.isPrepared(on: server) {
            guard PQsendPrepare(handle, statement.name, statement.sql, 0, nil) == 1 else { return fail(read, on: server) }
            statement.markPrepared(on: server)
            read.preparing = true
        }
        let sent = read.statement?.send(on: handle) ?? PQsendQueryParams(handle, read.command, 0, nil, nil, nil, nil, 1)
        guard sent == 1 else { return fail(read, on: server) }
        let waiting = server.inFlight.count
        // A cancel under way may hit it.
        read.exposed = server.cancelsUnderway > 0
        server.inFlight.append(read)
        server.unsynced += 1
        // The first read goes at once; those sent while it is in flight wait in libpq's buffer and
        // go together, behind one Sync, when the event loop's thread next reads answers: a batch
        // the server runs without waiting for the network between its reads.
        return waiting < Self.sentAtOnce ? sync(server) : nil
    }

    /// Called under `lock`: sends a Sync behind the reads that have none yet, and what libpq
    /// buffered; what to call after unlocking when that failed.
    private func sync(_ server: PostgresServerConnection) -> (() -> Void)? {
        guard PQpipelineSync(server.handle) == 1 else { return lose(server) }
        server.unsynced = 0
        server.syncsPending += 1
        let flushed = PQflush(server.handle)
        guard flushed >= 0 else { return lose(server) }
        server.flushPending = flushed == 1
        return watch(server)
    }

    /// Called under `lock`: `read` could not be sent to `server`; what to call to tell its task.
    private func fail(_ read: PostgresRead, on server: PostgresServerConnection) -> (() -> Void)? {
        guard server.isWorking else {
            let failed = read.task.map { task in { task.resume(throwing: Self.lost(server, sql: read.command)) } }
            let others = lose(server)
            return { failed?(); others?() }
        }
        guard let task = read.task else { return nil }
        let message = String(cString: PQerrorMessage(server.handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        let error = CRUDSQLExeError("PostgreSQL could not send the statement: \(message)", sql: read.command)
        return { task.resume(throwing: error) }
    }

    private static func lost(_ server: PostgresServerConnection, sql: String?) -> CRUDSQLExeError {
        lost(String(cString: PQerrorMessage(server.handle)), sql: sql)
    }

    private static func lost(_ message: String, sql: String?) -> CRUDSQLExeError {
        let message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        return CRUDSQLExeError("lost the connection to PostgreSQL: \(message); the next call reconnects", sql: sql, code: "08006",
                               databaseMessage: message, kind: .connectionLost)
    }

    /// Called under `lock`: `server` failed; every read in flight on it fails with it.
    private func lose(_ server: PostgresServerConnection) -> (() -> Void)? {
        let message = String(cString: PQerrorMessage(server.handle))
        var failed: [(UnsafeContinuation<PostgresAnswer?, any Error>, String)] = []
        for read in server.inFlight {
            PQclear(read.answer)
            if let task = read.task { failed.append((task, read.command)) }
        }
        server.inFlight.removeAll()
        server.pendingDeallocations.removeAll()
        server.failureInBatch = nil
        server.unsynced = 0
        server.syncsPending = 0
        let admitted = admit()
        return { [failed] in
            for (task, sql) in failed { task.resume(throwing: Self.lost(message, sql: sql)) }
            for resume in admitted { resume() }
        }
    }

    /// Called under `lock`: asks the event loop to call back while `server` has reads in flight.
    private func watch(_ server: PostgresServerConnection) -> (() -> Void)? {
        guard !server.isIdle, !server.watched || server.flushPending else { return nil }
        do {
            try CRUDEventLoop.shared.watch(PQsocket(server.handle), for: server.flushPending ? [.readable, .writable] : [.readable],
                                           handler: server)
            server.watched = true
            return nil
        } catch {
            let failed = server.inFlight.compactMap(\.task)
            for read in server.inFlight { PQclear(read.answer) }
            server.inFlight.removeAll()
            return { for task in failed { task.resume(throwing: error) } }
        }
    }

    /// Reads what `server` sent: each read's answer, complete at its Sync, goes to its task. On the
    /// event loop's thread.
    func answer(on server: PostgresServerConnection) {
        var resumed: [() -> Void] = []
        var answered: [Answered] = []
        lock.lock()
        server.watched = false
        if server.owner == nil, !server.isIdle {
            if server.flushPending {
                let flushed = PQflush(server.handle)
                server.flushPending = flushed == 1
                if flushed < 0, let failed = lose(server) { resumed.append(failed) }
            }
            if !server.isIdle {
                if PQconsumeInput(server.handle) != 1 {
                    if let failed = lose(server) { resumed.append(failed) }
                } else {
                    takeAnswers(on: server, into: &answered, calling: &resumed)
                }
            }
            if server.unsynced > 0, let failed = sync(server) { resumed.append(failed) }
            if server.isIdle { resumed += admit() }
            if let failed = watch(server) { resumed.append(failed) }
        }
        lock.unlock()
        for (task, answer) in answered { task.resume(returning: answer) }
        for resume in resumed { resume() }
    }

    /// A read's task and its answer, for it to be resumed with after unlocking: most reads end so,
    /// and a pair needs no closure made for it.
    private typealias Answered = (task: UnsafeContinuation<PostgresAnswer?, any Error>, answer: PostgresAnswer)

    /// Called under `lock`: the answers libpq has complete on `server`, each to its read's task:
    /// into `answered`, or what else to call into `resumed`. Each command's results end with a
    /// `nil` result; each Sync's with its own.
    private func takeAnswers(on server: PostgresServerConnection, into answered: inout [Answered], calling resumed: inout [() -> Void]) {
        while !server.isIdle, PQisBusy(server.handle) == 0 {
            guard let result = PQgetResult(server.handle) else {
                guard !server.inFlight.isEmpty else { break }
                if server.inFlight[0].preparing {
                    // The end of the read's preparation; the read's own results follow.
                    server.inFlight[0].preparing = false
                } else {
                    switch answer(server.inFlight.removeFirst(), on: server) {
                    case .answered(let pair): answered.append(pair)
                    case .call(let call): resumed.append(call)
                    case nil: break
                    }
                    cancelHead(of: server)
                }
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                server.syncsPending -= 1
                server.failureInBatch = nil
                PQclear(result)
            } else if server.inFlight.isEmpty {
                PQclear(result)
            } else if status == PGRES_PIPELINE_ABORTED {
                // A read before it in its batch failed: it did not run, nor its preparation.
                server.inFlight[0].aborted = true
                if server.inFlight[0].preparing { server.inFlight[0].statement?.forgetPreparation(on: server) }
                PQclear(result)
            } else if server.inFlight[0].preparing, status == PGRES_COMMAND_OK {
                PQclear(result)
            } else if server.inFlight[0].answer == nil {
                // The read's result, or its preparation's error (the statement is not prepared
                // there then).
                if server.inFlight[0].preparing { server.inFlight[0].statement?.forgetPreparation(on: server) }
                server.inFlight[0].answer = result
            } else {
                PQclear(result)
            }
        }
    }

    /// What tells a read's task how its read ended, after unlocking.
    private enum Ending {
        case answered(Answered)
        case call(() -> Void)
    }

    /// Called under `lock`, for a read whose results ended on `server`: how its task is told after
    /// unlocking, its answer or an error; or the read is sent again when it did not run (a read
    /// before it in its batch failed) or a cancel meant for another read hit it (a failed read
    /// changed nothing).
    private func answer(_ read: PostgresRead, on server: PostgresServerConnection) -> Ending? {
        let state = read.answer.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        // The statement is not prepared there (the server connection was replaced underneath): it
        // is prepared again at its next use there.
        if state == "26000" { read.statement?.forgetPreparation(on: server) }
        // The server ends this session: the reads behind this one were aborted with it, and it
        // takes no more until it connects again.
        if PostgresState.kind(of: state) == .connectionLost { server.broken = true }
        if state != nil, let message = PQresultErrorField(read.answer, Int32(UInt8(ascii: "M"))) {
            server.failureInBatch = String(cString: message)
        }
        guard let task = read.task else {
            PQclear(read.answer)
            return nil
        }
        let hit = state == "57014" && read.exposed && !read.cancelled
        if hit || (read.aborted && read.answer == nil), read.retries < 3 {
            PQclear(read.answer)
            var again = read
            again.answer = nil
            again.exposed = false
            again.aborted = false
            again.retries += 1
            guard let target = readTarget() else {
                guard readsHaveServer else { return .call { task.resume(returning: nil) } }
                queued.append(again)
                return nil
            }
            return send(again, on: target).map(Ending.call)
        }
        guard read.answer != nil || !read.aborted else {
            let error = server.isWorking && !server.broken
                ? CRUDSQLExeError("the read did not run: a read sent ahead of it in its pipeline failed, \(read.retries + 1) times"
                                  + (server.failureInBatch.map { " (the last: \($0))" } ?? ""), sql: read.command)
                : Self.lost(server, sql: read.command)
            return .call { task.resume(throwing: error) }
        }
        return .answered((task, PostgresAnswer(result: read.answer)))
    }

    // MARK: - Cancelling

    /// Called under `lock`: cancels the read the server runs on `server` when it is a cancelled one
    /// (a cancel that reaches the server between two reads stops nothing, so `requestCancel` asks
    /// again while it stays the first).
    private func cancelHead(of server: PostgresServerConnection) {
        guard server.inFlight.first?.cancelled == true else { return }
        requestCancel(on: server)
    }

    /// Called under `lock`: asks the server to cancel what `server` runs, on `cancelRequests`, since
    /// `PQcancel` connects to the server and waits for its answer (libpq 15 has no cancel that does
    /// not block): under `lock`, or on the event loop's thread, every shared read would wait for
    /// it. A request not begun yet serves for this one too. The cancel may hit any read in flight
    /// meanwhile, or sent before it is done: those are sent again when it did. Once it is done, and
    /// 20 ms later while the first read on `server` is a cancelled one, it is asked again.
    private func requestCancel(on server: PostgresServerConnection) {
        for index in server.inFlight.indices { server.inFlight[index].exposed = true }
        guard !server.cancelQueued else { return }
        server.cancelQueued = true
        server.cancelsUnderway += 1
        cancelRequests.async { [weak self, weak server] in
            guard let self, let server else { return }
            lock.withLock { server.cancelQueued = false }
            server.cancel()
            cancelEnded(on: server)
            CRUDTimers.after(.milliseconds(20)) { [weak self, weak server] in
                guard let self, let server else { return }
                lock.withLock { cancelHead(of: server) }
            }
        }
    }

    /// A cancel request for `server` is done: a session may hold it again, which it could not while
    /// the cancel might reach its statements (`PostgresServerConnection.isFree`).
    private func cancelEnded(on server: PostgresServerConnection) {
        let resumed: [() -> Void] = lock.withLock {
            server.cancelsUnderway -= 1
            return admit()
        }
        for resume in resumed { resume() }
    }

    /// Where the server connections' cancel requests run, one at a time: they all go to the same
    /// server, so one that waits would hold up the others anyway.
    private let cancelRequests = DispatchQueue(label: "CRUD.postgres.cancelRequests")

    /// Stops what `session` runs: its statement, on the server connection it holds, cancelled here
    /// and now but off `lock` (the caller's interrupt ends only once the server took it, and the
    /// call with it, so the cancel cannot reach the session's next statement); its read, when the
    /// server runs it (reads in flight with it are sent again if the cancel hits them); a read the
    /// server has not reached yet, or not sent yet, is left, and its task told at once.
    func interrupt(_ session: ObjectIdentifier) {
        var told: (() -> Void)?
        var cancelling: PostgresServerConnection?
        lock.lock()
        if let held = servers.first(where: { $0.owner == session }) {
            // Reads sent to it meanwhile (its holder may let it go) count as exposed.
            held.cancelsUnderway += 1
            cancelling = held
        } else if let index = waiting.firstIndex(where: { $0.session == session }) {
            let waiter = waiting.remove(at: index)
            for server in servers where server.reservedFor == session { server.reservedFor = nil }
            if let task = waiter.task {
                told = { task.resume(throwing: Self.interruptedWaiting) }
            } else {
                refused.insert(session)
                lock.broadcast()
            }
            let admitted = admit()
            let resume = told
            told = { resume?(); for call in admitted { call() } }
        } else if let server = servers.first(where: { $0.inFlight.contains { $0.session == session && $0.task != nil } }),
                  let index = server.inFlight.firstIndex(where: { $0.session == session && $0.task != nil }) {
            if index == 0 {
                if !server.inFlight[0].cancelled {
                    server.inFlight[0].cancelled = true
                    cancelHead(of: server)
                }
            } else if let task = server.inFlight[index].task {
                // Told now; the server stops it once it runs it.
                let error = CRUDSQLExeError("the read was cancelled before the server ran it", sql: server.inFlight[index].command)
                server.inFlight[index].task = nil
                server.inFlight[index].statement = nil
                server.inFlight[index].cancelled = true
                told = { task.resume(throwing: error) }
            }
        } else if let index = queued.firstIndex(where: { $0.session == session }) {
            let read = queued.remove(at: index)
            told = { read.task?.resume(throwing: CRUDSQLExeError("the read was cancelled before it was sent", sql: read.command)) }
        }
        lock.unlock()
        if let cancelling {
            cancelling.cancel()
            cancelEnded(on: cancelling)
        }
        told?()
    }
}

import Foundation

/// What the pool knows of a session, without its connection's type: its role, its lock and its
/// transaction state.
///
/// `@unchecked Sendable`: the mutable properties are guarded by `gate`, as in `CRUDSession`. Since
/// one holder at a time uses them (that lock, or a lease), the hot ones skip Swift's dynamic
/// exclusivity checks (`@exclusivity(unchecked)`), which cost more than the statement's own binding.
@usableFromInline
class CRUDSessionSlot: @unchecked Sendable {
    /// How deep the current transaction is nested: 0 outside any transaction. Guarded by `gate`.
    @usableFromInline @exclusivity(unchecked) var transactionDepth = 0
    /// Statements run so far, so that `Insert.lastInsertId()` can tell whether the connection ran
    /// something else since its insert. Guarded by `gate`.
    @usableFromInline @exclusivity(unchecked) var statementsRun = 0
    @usableFromInline let gate = CRUDSessionGate()
    /// Where async operations on this session run when they cannot run on the caller's thread: a
    /// thread of the library's, never Swift's cooperative pool, since the driver's calls block.
    let queue: DispatchQueue
    /// What the session is for, in the pool.
    let role: CRUDConnectionRole

    init(role: CRUDConnectionRole) {
        self.role = role
        queue = DispatchQueue(label: "CRUD.session.\(role)")
    }

    /// Whether the connection can still be used. Read holding `gate`.
    var isUsable: Bool { true }

    /// Whether the pool should replace the connection, which works, as it comes back
    /// (`CRUDConnection.wantsReplacing`). Read holding `gate`.
    var wantsReplacing: Bool { false }

    /// Whether the connection must ask the server if it still works before its next statement: set
    /// by the pool when another of its connections was found lost (a server restart drops them
    /// all). Guarded by the pool's lock while the session is idle, by its holder while leased.
    @usableFromInline @exclusivity(unchecked) var probeBeforeUse = false
    /// Whether its holder is a task that keeps it across suspension points (the pool counts those).
    /// Guarded by the pool's lock.
    var heldAcrossSuspension = false

    /// Makes the connection's running statement stop (`CRUDConnection.interrupt()`); safe from any
    /// thread while the session's holder runs a statement.
    func interrupt() {}

    /// The interrupted call has ended (`CRUDConnection.interruptEnded()`); by the session's holder.
    func interruptEnded() {}
}

/// One connection as the executor holds it: the driver's connection, the transaction state that
/// belongs to the executor rather than the driver, and the lock and queue that serialize its use.
///
/// Every statement the library runs goes through a session: `withStatement` prepares, binds, runs
/// and gives the statement back, and logs an error once as it leaves; `transaction` nests with
/// savepoints and refuses to go on in a transaction the database ended underneath.
///
/// `@unchecked Sendable`: at most one thread uses `connection` and the mutable state at a time. A pool
/// lease hands the session to one caller alone, which uses it without locking; callers that share a
/// session (child tasks of a transaction body, the single connection of an in-memory database or a
/// child) hold `gate` for each use (a thread as a recursive lock, a task awaiting the server across its
/// suspensions); `Insert.lastInsertId()` takes the session out
/// of the pool before using it.
@usableFromInline
final class CRUDSession<Connection: CRUDConnection>: CRUDSessionSlot, @unchecked Sendable {
    @usableFromInline let connection: Connection
    /// The changes of the open transaction, for the observers.
    @usableFromInline let recorder = CRUDChangeRecorder()
    /// The database's observers, which committed changes go to.
    let observation: CRUDObservationCenter
    /// Whether the connection records every row change itself (SQLite's update hook); otherwise the
    /// chain's writes return the ids of the rows they change while someone observes.
    let connectionRecordsChanges: Bool

    /// The statements prepared queries keep on this connection, at their slots' indexes, each with
    /// the generation of the slot it was prepared for (`CRUDStatementSlot`).
    @usableFromInline @exclusivity(unchecked) var ownedStatements: [(generation: Int, statement: Connection.Statement)?] = []
    /// The values a one-row read binds, kept between reads so that collecting them allocates
    /// nothing once it has grown.
    @usableFromInline @exclusivity(unchecked) var rowReadValues: [CRUDDatabaseValue] = []

    /// Where every schema change commits the open transaction (MySQL), the texts of the statements
    /// the open transaction ran, so that a schema change run beside it can tell whether it used the
    /// table (`transactionMayUse`). Empty elsewhere, and outside transactions.
    @usableFromInline @exclusivity(unchecked) var transactionStatements: Set<String> = []
    @usableFromInline let keepsTransactionStatements: Bool

    /// The keys an upsert found (`keys(of:exactly:among:)`), by table and columns. Only found keys are kept:
    /// a key dropped later makes the database refuse the statement, while a missing one remembered
    /// would refuse an upsert after the key was added.
    private var foundKeys: [[String]: Set<String>] = [:]

    /// The database's metrics and tracer, which measure every statement; `nil` when there are none.
    @usableFromInline let instruments: CRUDInstruments?
    /// The cancellation of the call running on the session, which its statements check and whose
    /// interrupts stop them; `nil` when the call has neither a task to be cancelled nor a timeout.
    /// Guarded by `gate`, as the statements are.
    @usableFromInline @exclusivity(unchecked) var cancellation: CRUDCancellation?
    /// Whether the async call running on the session only reads (`CRUDAccess.read`): its statements
    /// outside a transaction may then share a server connection with other sessions'.
    @usableFromInline @exclusivity(unchecked) var callReads = false

    init(_ connection: Connection, role: CRUDConnectionRole, observation: CRUDObservationCenter, instruments: CRUDInstruments?) {
        self.connection = connection
        self.observation = observation
        self.instruments = instruments
        connectionRecordsChanges = connection.recordChanges(into: recorder)
        keepsTransactionStatements = !connection.dialect.transactionalDDL
        super.init(role: role)
        logOpeningStatements()
    }

    /// Writes what the connection ran to open or reconnect to the query log, as if run here.
    func logOpeningStatements() {
        for sql in connection.takeOpeningStatements() { CRUDLogging.logQuery(sql) }
    }

    deinit {
        // Before the connection goes: the statements belong to it.
        ownedStatements.removeAll()
    }

    override var isUsable: Bool { connection.isUsable }

    override var wantsReplacing: Bool { connection.wantsReplacing }

    override func interrupt() { connection.interrupt() }

    override func interruptEnded() { connection.interruptEnded() }

    /// Runs `body`, a call of its own, under `cancellation`: it stops the call's statements when
    /// the task is cancelled or its timeout passes.
    /// - Throws: what `body` throws; `CancellationError` or `CRUDSQLExeError` of kind `.timedOut`
    ///   for a call cancelled before it started.
    @usableFromInline
    func running<T>(_ cancellation: CRUDCancellation, _ body: () throws -> T) throws -> T {
        let outer = try enter(cancellation)
        defer { leave(cancellation, restoring: outer) }
        do {
            return try body()
        } catch {
            // What the interrupt stopped outside a statement's own mapping (a catalog read).
            throw cancellation.error(replacing: error)
        }
    }

    /// A call under `cancellation` begins on the session: its statements check it from now on.
    /// Returns the cancellation it stands in for, which `leave` puts back.
    /// - Throws: the cancellation's error for a call cancelled before it started.
    func enter(_ cancellation: CRUDCancellation) throws -> CRUDCancellation? {
        try cancellation.begin(on: self)
        let outer = self.cancellation
        self.cancellation = cancellation
        return outer
    }

    /// The call under `cancellation` has ended: `outer` is the session's again.
    func leave(_ cancellation: CRUDCancellation, restoring outer: CRUDCancellation?) {
        self.cancellation = outer
        cancellation.end()
    }

    /// Runs `body`, a synchronous call, cancelled when it runs past `timeout`; as it is without a
    /// timeout, or inside a call that has its own cancellation already (an async call's).
    @inlinable
    func timingOut<T>(after timeout: Duration?, _ body: () throws -> T) throws -> T {
        guard let timeout, cancellation == nil else { return try body() }
        return try running(CRUDCancellation(timeout: timeout), body)
    }

    /// The keys found before of `table` made of exactly `columns`, if any were.
    @usableFromInline
    func foundKeys(of table: String, exactly columns: [String]) -> Set<String>? {
        foundKeys[Self.foundKeysEntry(table, columns)]
    }

    /// Where `foundKeys` keeps the keys of `table` made of exactly `columns`, in any order.
    private static func foundKeysEntry(_ table: String, _ columns: [String]) -> [String] {
        [table] + columns.sorted()
    }

    /// Of `all` the unique keys of `table` (by name, as the catalog query gives them), those made of exactly
    /// `columns`: kept for the session's later asks when there are some.
    func keys(of table: String, exactly columns: [String], among all: [String: Set<String>]) -> Set<String> {
        let wanted = Set(columns)
        let found = Set(all.filter { $0.value == wanted }.keys)
        if !found.isEmpty { foundKeys[Self.foundKeysEntry(table, columns)] = found }
        return found
    }

    var dialect: any CRUDDialect { connection.dialect }

    /// Runs `body` holding the gate.
    @inlinable
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        try gate.withLock(body)
    }

    /// Runs `body` holding the gate: right here when `here` (the driver runs on callers' threads)
    /// and the gate is free at once, else as `perform(_:)` does, so that no thread of Swift's
    /// cooperative pool waits for another caller's statement.
    nonisolated(nonsending) func perform<T>(here: Bool, _ body: @escaping () throws -> T) async throws -> T {
        if here, gate.tryLock() {
            // Given back before the task next suspends: a thread's hold is the thread's, not the task's.
            defer { gate.unlock() }
            return try body()
        }
        // The caller is suspended until `body` has run on the queue.
        nonisolated(unsafe) let body = body
        return try await perform(body)
    }

    /// Runs `body` on the session's queue holding the gate, and resumes the caller with its result.
    func perform<T>(_ body: @escaping () throws -> T) async throws -> T {
        // The caller is suspended until `body` has run, and what `body` captures (a query's plan, a
        // copy of the caller's model values) is used by nothing else meanwhile.
        nonisolated(unsafe) let body = instruments?.carryingContext(body) ?? body
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SendableResult<T>, any Error>) in
            queue.async {
                self.gate.lock()
                defer { self.gate.unlock() }
                continuation.resume(with: Result { SendableResult(value: try body()) })
            }
        }.value
    }

    // MARK: - Statements

    /// Prepares `sql`, binds `parameters` from position `firstParameter` on, runs `body` with the
    /// statement and gives the statement back.
    @usableFromInline
    func withStatement<T>(_ sql: String, _ parameters: [CRUDDatabaseValue] = [], firstParameter: Int = 0,
                          _ body: (Connection.Statement) throws -> T) throws -> T {
        try measured(sql) {
            let statement = try prepared(sql, parameters, firstParameter: firstParameter)
            defer { connection.release(statement) }
            let start = recorder.statementStart
            do {
                let result = try body(statement)
                statementSucceeded()
                return result
            } catch {
                recorder.dropStatement(from: start)
                throw error
            }
        }
    }

    /// Runs `body`, which runs the statement `sql`, timed for the query log and measured for the
    /// metrics and traces (`CRUDInstruments`), and logs it after. Under a call's cancellation, a
    /// statement is refused once the call is cancelled, and one that the cancellation interrupted
    /// throws its error; but a statement `ending` a transaction (a rollback) always runs.
    @inlinable
    func measured<T>(_ sql: String, ending: Bool = false, _ body: () throws -> T) throws -> T {
        guard let cancellation, !ending else { return try measuredNow(sql, body) }
        try cancellation.check()
        do {
            return try measuredNow(sql, body)
        } catch {
            throw cancellation.error(replacing: error)
        }
    }

    @inlinable
    func measuredNow<T>(_ sql: String, _ body: () throws -> T) throws -> T {
        let started = CRUDLogging.statementStarts()
        if let instruments { return try instruments.measure(sql, loggedSince: started, body) }
        defer { CRUDLogging.statementRan(sql, since: started) }
        return try body()
    }

    /// Runs `body` with the statement this connection keeps for `slot`, prepared from the slot's
    /// SQL the first time, and resets it afterwards: found by index, no text hashed.
    @inlinable
    func withOwnedStatement<T>(_ slot: CRUDStatementSlot, _ body: (Connection.Statement) throws -> T) throws -> T {
        try measured(slot.sql) {
            let statement = try startOwned(slot)
            let result: T
            do {
                result = try body(statement)
            } catch {
                try? statement.reset()
                throw error
            }
            try statement.reset()
            return result
        }
    }

    /// The statement this connection keeps for `slot`, about to run: the session made usable first,
    /// and the run counted.
    @inlinable
    func startOwned(_ slot: CRUDStatementSlot) throws -> Connection.Statement {
        try ensureUsable()
        statementsRun &+= 1
        noteInTransaction(slot.sql)
        return try ownedStatement(slot)
    }

    /// The statement this connection keeps for `slot`, prepared from its SQL unless it is already.
    @inlinable
    func ownedStatement(_ slot: CRUDStatementSlot) throws -> Connection.Statement {
        if let kept = keptStatement(slot) { return kept }
        return keep(try connection.prepareOwned(slot.sql), for: slot)
    }

    /// The statement this connection keeps for `slot`, if it has one prepared for it.
    @inlinable
    func keptStatement(_ slot: CRUDStatementSlot) -> Connection.Statement? {
        guard slot.index < ownedStatements.count, let owned = ownedStatements[slot.index], owned.generation == slot.generation else { return nil }
        return owned.statement
    }

    /// Keeps `statement`, just prepared, for `slot`, in place of one prepared for an older query there.
    @usableFromInline
    func keep(_ statement: Connection.Statement, for slot: CRUDStatementSlot) -> Connection.Statement {
        if slot.index >= ownedStatements.count {
            ownedStatements += repeatElement(nil, count: slot.index + 1 - ownedStatements.count)
        }
        if let old = ownedStatements[slot.index] { connection.discard(old.statement) }
        ownedStatements[slot.index] = (slot.generation, statement)
        return statement
    }

    /// Prepares `sql` and binds `parameters` from position `firstParameter` on, for a caller that
    /// gives the statement back to the connection itself (a cursor keeps it across calls), and
    /// logs it when it is done (`CRUDLogging.statementRan`).
    func prepared(_ sql: String, _ parameters: [CRUDDatabaseValue], firstParameter: Int = 0) throws -> Connection.Statement {
        try startPreparing(sql)
        return try binding(parameters, from: firstParameter, to: try connection.prepare(sql))
    }

    /// Before a statement of `sql` is prepared to run: the session made usable, the run counted,
    /// and its changes recorded while someone observes.
    /// - Throws: `CRUDSQLExeError` when the session cannot be used.
    func startPreparing(_ sql: String) throws {
        _ = try startRun(sql, ending: false)
        if role != .reader { recorder.isRecording = observation.isActive }
    }

    /// `statement` with `parameters` bound from position `firstParameter` on; given back to the
    /// connection when binding fails.
    /// - Throws: `CRUDEncoderError`, `CRUDSQLExeError`.
    func binding(_ parameters: [CRUDDatabaseValue], from firstParameter: Int, to statement: Connection.Statement) throws -> Connection.Statement {
        do {
            var binder = statement
            for (offset, value) in parameters.enumerated() {
                try value.bind(to: &binder, at: firstParameter + offset)
            }
        } catch {
            connection.release(statement)
            throw error
        }
        return statement
    }

    /// Runs statements without parameters. Unless `ending` a transaction, it refuses to run
    /// inside a transaction that the database no longer has open.
    func run(_ sql: String, ending: Bool = false) throws {
        try measured(sql, ending: ending) {
            let start = try startRun(sql, ending: ending)
            do {
                try connection.execute(sql)
            } catch {
                recorder.dropStatement(from: start)
                throw error
            }
        }
    }

    /// Before `run` sends `sql`: the session made usable (unless it ends a transaction) and the
    /// statement counted. Returns where the statement's recorded changes start.
    /// - Throws: `CRUDSQLExeError` when the session cannot be used.
    @usableFromInline @inline(__always)
    func startRun(_ sql: String, ending: Bool) throws -> Int {
        if !ending { try ensureUsable() }
        statementsRun &+= 1
        noteInTransaction(sql)
        return recorder.statementStart
    }

    /// Steps an insert of `rows` rows into `table`, bound: records them for the observers, and where
    /// it `returnsRows` hands each returned row to `row`. Inlinable, as `step` is: the insert's loop
    /// runs it once a row.
    /// - Throws: `CRUDSQLExeError`, also when the database returned another number of rows; what `row` throws.
    @inlinable
    func stepInsert(_ statement: Connection.Statement, rows: Int, in table: String, capture: CRUDChangeCapture, idColumn: Int,
                    returnsRows: Bool, sql: String, row: (Connection.Statement) throws -> Void) throws {
        guard returnsRows else { return try step(statement, writing: .insert, in: table, capture: capture, idColumn: idColumn) }
        var returned = 0
        try step(statement, writing: .insert, in: table, capture: capture, idColumn: idColumn) { statement in
            returned += 1
            try row(statement)
        }
        guard returned == rows else { throw CRUDSQLExeError("INSERT … RETURNING gave \(returned) rows for \(rows)", sql: sql) }
    }

    /// After a statement: outside a transaction it committed on its own, so its changes go to the
    /// observers now.
    @usableFromInline
    func statementSucceeded() {
        if transactionDepth == 0, recorder.hasPending { observation.publish(recorder.takeCommitted()) }
    }

    /// What a chain write of `kind` on `schema`'s table must do so that observers learn of its rows:
    /// nothing when nobody observes or the connection records changes itself; otherwise return the
    /// rows' integer ids (`idColumn`), or, for a table without one or a write that cannot return
    /// (MySQL's UPDATE), record that the table changed.
    @usableFromInline
    func changeCapture(for schema: CRUDTableSchema, writing kind: CRUDChangeKind) -> CRUDChangeCapture {
        guard !connectionRecordsChanges, observation.isActive else { return CRUDChangeCapture(observed: false, idColumn: nil) }
        guard let key = schema.primaryKey, case .integer = schema.columns[key].type else {
            return CRUDChangeCapture(observed: true, idColumn: nil)
        }
        guard dialect.canReturn(from: kind) else { return CRUDChangeCapture(observed: true, idColumn: nil, selectedIDColumn: key) }
        return CRUDChangeCapture(observed: true, idColumn: key)
    }

    /// Records a change of `kind` in `table` of each row of `ids`, for observers.
    @usableFromInline
    func record(_ kind: CRUDChangeKind, in table: String, ids: [Int]) {
        for id in ids { recorder.record(kind, table: table, id: id) }
    }

    /// Runs a chain write through every row it returns, recording its changes as `capture` says:
    /// each returned row's id (read from result column `idColumn`), or only that `table` changed.
    /// `row` reads what the caller asked the write to return, if anything.
    @inlinable
    func step(_ statement: Connection.Statement, writing kind: CRUDChangeKind, in table: String,
              capture: CRUDChangeCapture, idColumn: Int = 0, row: (Connection.Statement) throws -> Void = { _ in }) throws {
        guard capture.observed else {
            while try statement.step() { try row(statement) }
            return
        }
        var changed = false
        while try statement.step() {
            try row(statement)
            if capture.idColumn != nil {
                let id = try statement.readInt64(idColumn)
                recorder.record(kind, table: table, id: Int(id))
                if kind == .insert { connection.insertReturned(id: id) }
            }
            changed = true
        }
        if capture.idColumn == nil, changed || statement.changedRows > 0 { recorder.record(kind, table: table, id: nil) }
    }

    /// Before a statement: refuses to run in a transaction the database ended; outside a
    /// transaction, reconnects a connection that was lost (or, told to probe, found lost), so the
    /// call after a server restart works.
    @usableFromInline
    func ensureUsable() throws {
        try ensureTransactionIntact()
        guard transactionDepth == 0 else { return }
        if probeBeforeUse {
            probeBeforeUse = false
            connection.probe()
        }
        if !connection.isUsable {
            // Kept statements die with the old connection.
            ownedStatements.removeAll()
            try connection.reconnect()
            logOpeningStatements()
        }
    }

    // MARK: - Transactions

    /// Throws when the session is inside a transaction that the database no longer has open: the
    /// connection was lost (PostgreSQL ends the session's transaction with it) or the database rolled
    /// it back by itself (SQLite does on some I/O, disk-full and memory errors). Nothing may run then:
    /// a statement would run outside the transaction and commit on its own.
    @usableFromInline
    func ensureTransactionIntact() throws {
        guard transactionDepth > 0, connection.transactionStatus == .none else { return }
        throw CRUDSQLExeError("the transaction is no longer open: the database ended it (a lost connection or an automatic rollback), "
            + "so none of its work is committed and nothing more runs in it; the outermost transaction throws, and calls after it start anew")
    }

    /// Runs `body` in a transaction: the outermost one with the dialect's BEGIN for `mode` … COMMIT,
    /// nested ones as savepoints. An error rolls back this level only and is rethrown; the outer body
    /// may catch it and go on. A transaction that the database ended or aborted underneath throws at
    /// its end, never returns as if committed.
    @usableFromInline
    func transaction<T>(_ mode: TransactionMode, _ body: () throws -> T) throws -> T {
        try begin(mode)
        do {
            let result = try body()
            try commit()
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Whether the open transaction may have used one of `tables`, by the names its statements
    /// mention (kept where schema changes commit the transaction: `transactionStatements`); the
    /// first such table, or `nil`.
    func transactionMayUse(anyOf tables: [String]) -> String? {
        var names: Set<String> = []
        for sql in transactionStatements { SQLNames.collect(from: sql, into: &names) }
        return tables.first { names.contains($0.lowercased()) }
    }

    /// Notes a statement the open transaction runs, where `transactionMayUse` needs to know.
    @usableFromInline @inline(__always)
    func noteInTransaction(_ sql: String) {
        if keepsTransactionStatements, transactionDepth > 0 { transactionStatements.insert(sql) }
    }

    /// Opens a transaction, or a savepoint inside one.
    @usableFromInline
    func begin(_ mode: TransactionMode) throws {
        try run(try beginning(mode))
        began()
    }

    /// Commits the innermost open level: COMMIT, or RELEASE of its savepoint. On failure the level
    /// stays open for `rollBack()`.
    @usableFromInline
    func commit() throws {
        try run(try committing())
        committed()
    }

    /// Rolls back the innermost open level. Nothing is sent when the database has no transaction
    /// open any more: on a lost connection that could only fail.
    @usableFromInline
    func rollBack() {
        do {
            for sql in rollingBack() { try run(sql, ending: true) }
        } catch {
            CRUDLogging.log(.error, "rolling back failed as well: \(error)")
        }
    }

    /// What opens the next level: `BEGIN` at the outermost, else a savepoint.
    /// - Throws: `CRUDSQLExeError` for a transaction opened behind the executor's back;
    ///   `CRUDSQLGenError` for a mode the dialect lacks.
    func beginning(_ mode: TransactionMode) throws -> String {
        guard transactionDepth == 0 else { return dialect.savepoint("crud_savepoint_\(transactionDepth)") }
        guard connection.transactionStatus == .none else {
            throw CRUDSQLExeError(
                "a transaction is already open on this connection outside CRUD's transaction API (raw SQL BEGIN?); "
                    + "use transaction { } or beginTransaction() instead, which track it")
        }
        transactionStatements.removeAll()
        return try dialect.beginTransaction(mode)
    }

    /// The level `beginning` named is open.
    func began() {
        if transactionDepth == 0 { recorder.dropAll() } else { recorder.beginSavepoint() }
        transactionDepth += 1
    }

    /// What commits the innermost level: COMMIT, or RELEASE of its savepoint.
    /// - Throws: `CRUDSQLGenError` when none is open; `CRUDSQLExeError` when the database aborted it.
    func committing() throws -> String {
        guard transactionDepth > 0 else {
            throw CRUDSQLGenError("commitTransaction(): no transaction is open on this connection")
        }
        if connection.transactionStatus == .aborted {
            throw CRUDSQLExeError(
                "the transaction was aborted by a failed statement whose error the body caught, so none of its work is committed; "
                + "on PostgreSQL a failed statement aborts the transaction: wrap the statements that may fail in a nested transaction (a savepoint) to go on after them")
        }
        // `run` refuses, and throws, when the database has no transaction open any more.
        let depth = transactionDepth - 1
        return depth == 0 ? dialect.commitTransaction : dialect.releaseSavepoint("crud_savepoint_\(depth)")
    }

    /// The innermost level `committing` named is committed: at the outermost, its changes go to
    /// the observers.
    func committed() {
        transactionDepth -= 1
        if transactionDepth == 0 {
            transactionStatements.removeAll()
            observation.publish(recorder.takeCommitted())
        } else {
            recorder.releaseSavepoint()
        }
    }

    /// Closes the innermost level as rolled back, and returns what undoes it in the database:
    /// nothing when the database has no transaction open any more.
    func rollingBack() -> [String] {
        guard transactionDepth > 0 else { return [] }
        let depth = transactionDepth - 1
        transactionDepth = depth
        if depth == 0 {
            transactionStatements.removeAll()
            recorder.dropAll()
        } else {
            recorder.rollBackSavepoint()
        }
        guard connection.transactionStatus != .none else { return [] }
        let savepoint = "crud_savepoint_\(depth)"
        return depth == 0 ? [dialect.rollbackTransaction] : [dialect.rollbackToSavepoint(savepoint), dialect.releaseSavepoint(savepoint)]
    }

    /// After raw SQL: a transaction it opened or closed behind the executor's back is refused, so a
    /// later transaction never silently nests in it or runs outside it.
    @usableFromInline
    func checkRawTransactionControl(_ sql: String) throws {
        if transactionDepth == 0, connection.transactionStatus != .none {
            try? connection.execute(dialect.rollbackTransaction)
            throw CRUDSQLExeError(
                "sql(): the statement opened a transaction that CRUD does not track, so it was rolled back; "
                    + "use transaction { } or a child's beginTransaction() to control transactions", sql: sql)
        }
    }
}

/// A result carried across a continuation: made on a queue of the library's and handed to the one
/// caller awaiting it, which was suspended meanwhile, so no two threads ever hold it at once. (No
/// lock: it is a hand-over, not shared state; the compiler cannot see that the value is disconnected.)
struct SendableResult<T>: @unchecked Sendable {
    let value: T
}

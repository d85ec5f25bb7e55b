import Foundation

/// Moves through a query's results one model at a time, throwing what goes wrong:
///
///     let cursor = try db.table(Person.self).cursor()
///     while let person = try cursor.next() { … }
///
/// Root rows are read as `next()` asks; a join's children are loaded when the first root row asks
/// for them. The
/// cursor holds a connection (a reader on SQLite) until the rows run out, an error is thrown, or the
/// cursor goes away: finish with it promptly.
///
/// `next()` is inlinable so that reading rows specializes in the caller's module, where the model's
/// generated reader and the driver's statement type are both concrete.
public final class CRUDCursor<Model: CRUDModel, Connection: CRUDConnection> {
    @usableFromInline let executor: CRUDExecutor<Connection>
    @usableFromInline let session: CRUDSession<Connection>
    /// The session is the current transaction's or shared by every caller (`:memory:`), so each
    /// step takes its lock; a session leased to this cursor alone needs none.
    @usableFromInline let locksEachStep: Bool
    /// Whether the session goes back to the pool when the cursor finishes.
    private let leased: Bool
    // A `let`, so reading a row needs no retain of the statement; `isFinished` says it went back.
    @usableFromInline let statement: Connection.Statement
    @usableFromInline var isFinished = false
    /// The joins' children by relation position; empty without joins.
    @usableFromInline let joins: [JoinedChildren<Connection>?]
    /// The root query's SQL and when it started, for the query log when the cursor finishes.
    private var sql = ""
    private let started: UInt64
    /// The statement's measurement for the metrics and traces, when there are any.
    private var measurement: CRUDInstruments.Measurement?
    /// Whether the cursor opened the transaction its root query and its joins' children read one
    /// snapshot in, which it ends as it finishes.
    private var ownsSnapshot = false

    /// Runs the query on the current transaction's session, or on one leased for `hold`.
    convenience init(executor: CRUDExecutor<Connection>, plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, hold: CRUDHold = .brief) throws {
        try plan.validate()
        let bound = executor.boundSession()
        try self.init(executor: executor, plan: plan, limit: limit, session: bound ?? executor.lease(.read, hold: hold), leased: bound == nil)
    }

    /// Runs the query on `session`: bound to the caller (the transaction's, shared with its other
    /// calls), or `leased` to this cursor, which gives it back when it finishes (also when this
    /// initializer throws).
    init(executor: CRUDExecutor<Connection>, plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, session: CRUDSession<Connection>,
         leased: Bool) throws {
        self.executor = executor
        self.session = session
        self.leased = leased
        started = CRUDLogging.statementStarts()
        let bound = !leased
        let shared = bound || session.role == .single
        locksEachStep = shared
        if shared { session.gate.lock() }
        defer { if shared { session.gate.unlock() } }
        do {
            try plan.validate(inTransaction: session.transactionDepth > 0)
            // A join reads its children in a second statement: outside the caller's transaction, in
            // one of its own, so that both read the same rows. A connection shared by every caller
            // (an in-memory database's) would put the others' statements in it: there they read as
            // they come.
            if !plan.joins.isEmpty, session.transactionDepth == 0, session.role != .single {
                try session.begin(executor.dialect.snapshotTransaction)
                ownsSnapshot = true
            }
            joins = try executor.joinedChildren(plan, limit: limit, on: session)
            let (sql, parameters) = try SelectCache.shared.select(plan, limit: limit, dialect: executor.selectDialect)
            self.sql = sql
            measurement = session.instruments?.start(sql)
            statement = try session.prepared(sql, parameters)
        } catch {
            if !sql.isEmpty { CRUDLogging.statementRan(sql, since: started) }
            if let measurement { session.instruments?.end(measurement, error: error) }
            if ownsSnapshot { session.rollBack() }
            if leased { executor.giveBack(session) }
            throw error
        }
    }

    deinit {
        finish()
    }

    /// The next result, or `nil` after the last.
    /// - Throws: `CRUDSQLExeError` when the database fails, `CRUDDecoderError` when a row does not fit
    ///   the model. The cursor is finished afterwards.
    @inlinable
    public func next() throws -> Model? {
        if isFinished { return nil }
        if locksEachStep { session.gate.lock() }
        defer { if locksEachStep { session.gate.unlock() } }
        do {
            guard try statement.step() else {
                finish()
                return nil
            }
            return try currentRow()
        } catch {
            throw failed(error)
        }
    }

    /// Calls `body` with each remaining result, then finishes.
    ///
    /// Unlike a loop over `next()`, no result is wrapped in an `Optional`, which for a model with
    /// several reference-counted fields was copied and destroyed through value witnesses. `body` runs
    /// outside the session's lock (it may run queries of its own); its errors pass on as they are.
    /// - Throws: as `next()` does, or what `body` throws.
    @inlinable
    public func forEachRemaining(_ body: (Model) throws -> Void) throws {
        while !isFinished {
            let row: Model
            do {
                if locksEachStep { session.gate.lock() }
                defer { if locksEachStep { session.gate.unlock() } }
                guard try statement.step() else {
                    finish()
                    return
                }
                row = try currentRow()
            } catch {
                throw failed(error)
            }
            try body(row)
        }
    }

    /// The model read from the row the statement stands on.
    @inlinable
    func currentRow() throws -> Model {
        if joins.isEmpty { return try Model(crudRow: statement) }
        return try Model(crudRow: JoinedRow<Connection>(base: statement, joins: joins))
    }

    /// Finishes the cursor and returns the error to throw: logged, given to `didFail`, and for a
    /// decoding error naming the model.
    @usableFromInline
    func failed(_ error: any Error) -> any Error {
        // A step that the call's cancellation interrupted throws the cancellation's error.
        let error = session.cancellation?.error(replacing: error) ?? error
        finish(failing: error)
        let thrown: any Error = if let decoding = error as? CRUDDecoderError {
            decoding.reading(Model.self)
        } else {
            error
        }
        // `next()` is a public operation of its own: its errors go to `didFail` too.
        guard let reportable = thrown as? any CRUDReportableError, !reportable.isReported else { return thrown }
        return executor.report(reportable)
    }

    /// Gives the statement back, and the session to the pool if the cursor leased it; `error` is
    /// what ended the statement, if it failed.
    @usableFromInline
    func finish(failing error: (any Error)? = nil) {
        if !isFinished {
            isFinished = true
            CRUDLogging.statementRan(sql, since: started)
            if let measurement { session.instruments?.end(measurement, error: error) }
            if locksEachStep { session.gate.lock() }
            session.connection.release(statement)
            endSnapshot()
            if locksEachStep { session.gate.unlock() }
            if leased { executor.giveBack(session) }
        }
    }
}

extension CRUDCursor {
    /// Ends the transaction the cursor opened for its snapshot, once its statement is released: it
    /// wrote nothing, so its commit only ends it; one that fails (the connection was lost) leaves
    /// nothing to undo.
    private func endSnapshot() {
        guard ownsSnapshot else { return }
        ownsSnapshot = false
        do {
            try session.commit()
        } catch {
            session.rollBack()
        }
    }
}

extension CRUDExecutor {
    /// The children of each relation `plan` joins, by relation position (`nil` for one it does not
    /// join), read on `session` when a root row first asks for them.
    /// - Throws: `CRUDSQLGenError`.
    func joinedChildren(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, on session: Session) throws -> [JoinedChildren<Connection>?] {
        var joins: [JoinedChildren<Connection>?] = []
        for index in plan.joins.indices {
            let join = plan.joins[index]
            if joins.count <= join.relation { joins += repeatElement(nil, count: join.relation + 1 - joins.count) }
            let children = try render(.children(plan, join: index, limit: limit))
            joins[join.relation] = JoinedChildren(
                parentColumn: join.parentColumn, keyType: plan.root.crudSchema.columns[join.parentColumn].type, sql: children.sql,
                parameters: children.parameters, keyColumn: join.pivot == nil ? join.childColumn : join.model.crudSchema.columns.count,
                limit: join.limit, session: session)
        }
        return joins
    }

    /// A cursor over `plan`'s rows, at most `limit`: the funnel's entry for a read whose rows the
    /// caller takes one at a time. A task may keep it across its awaits (`hold`).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @usableFromInline
    func cursor<Model: CRUDModel>(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, hold: CRUDHold = .brief) throws
        -> CRUDCursor<Model, Connection> {
        try reporting { try CRUDCursor(executor: self, plan: plan, limit: limit, hold: hold) }
    }
}

/// Async reads, writes and pages on a driver that executes without blocking (PostgreSQL's,
/// MySQL's): they run in the caller's own task, which suspends while it waits for a connection (or
/// its transaction's, `CRUDSessionGate`) and for the server's answer (`CRUDEventLoop`), so no
/// thread is held for it, and reads the rows from the answer. The chain's async operations come
/// here where `canAwaitServer`, and go through `perform` otherwise; each shares its plan, binding
/// and reading with the synchronous form.
///
/// These frames, the session's awaiting forms, the drivers' waits and the async closures they pass
/// each other run on their caller's executor (`nonisolated(nonsending)`), as `perform`'s do: the
/// public call that comes here has left any actor already, and each hop between two nonisolated
/// frames asked the task's preferred executor under its status lock (22 hops in a PostgreSQL
/// lookup, 6,300 of its 35,600 client instructions).
extension CRUDExecutor {
    /// Whether an async read of the current task can run in the task itself: the driver executes
    /// without blocking, and the task does not run on `CRUDThreads`, whose threads are there to
    /// block: a blocking call inline there costs less than a wait on the event loop (4 tasks × 10,000
    /// PostgreSQL lookups: 1.12× raw libpq inline, 2.0× awaited). In a transaction the call takes
    /// the transaction's session, which its body's child tasks share, in turn (`CRUDSessionGate`).
    @inlinable
    var canAwaitServer: Bool {
        awaitsServer && !CRUDThreadMarker.isMarked
    }

    /// Whether an async write of `kind` can, as a read can: it is one statement, which returns the
    /// ids of the rows it changes where observers want them (a database that cannot return them
    /// selects them first, locked, in a transaction).
    @inlinable
    func canAwaitServer(writing kind: CRUDChangeKind) -> Bool {
        canAwaitServer && dialect.canReturn(from: kind)
    }

    /// Runs `body`, an async caller's read, on a session for `access` in the caller's task: the
    /// boundary of the funnel for such calls, as `perform` is for the others. Cancelling the task,
    /// or the statement timeout, stops the statement (`CRUDCancellation`).
    /// - Throws: what `body` throws; `CancellationError`, or `CRUDSQLExeError` of kind `.timedOut`.
    @usableFromInline
    nonisolated(nonsending) func awaiting<T>(_ access: CRUDAccess,
                                             _ body: nonisolated(nonsending) (CRUDSession<Connection>) async throws -> T) async throws -> T {
        do {
            let cancellation = CRUDCancellation(timeout: statementTimeout(in: CRUDBindings.current))
            return try await withTaskCancellationHandler {
                if let bound = boundSession() {
                    return try await holding(bound) { try await bound.running(cancellation) { try await body(bound) } }
                }
                // Held across the wait for the answer: a synchronous caller in another task must not
                // block a thread waiting for it (`CRUDHold.acrossSuspension`).
                let session = try await leaseAcrossSuspension(access)
                defer { pool.giveBack(session, usedHere: true) }
                return try await session.running(cancellation, reading: access == .read) { try await body(session) }
            } onCancel: {
                cancellation.cancel(.cancelled)
            }
        } catch let error as any CRUDReportableError where !error.isReported {
            throw report(error)
        }
    }

    /// Runs `body` holding `session`, which the callers of a transaction share, in the current
    /// task: it suspends while another caller holds the session.
    nonisolated(nonsending) func holding<T>(_ session: Session, _ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        await session.gate.acquire()
        defer { session.gate.release() }
        return try await body()
    }

    /// A session for `access` held across the task's suspensions: an idle one at once, else waited
    /// for (or opened) without blocking.
    /// - Throws: as the pool's async `lease`.
    @inline(__always)
    private nonisolated(nonsending) func leaseAcrossSuspension(_ access: CRUDAccess) async throws -> CRUDSession<Connection> {
        if let idle = try pool.leaseNow(access, hold: .acrossSuspension, opening: false) { return typed(idle) }
        return try await leaseWaiting(access)
    }

    private nonisolated(nonsending) func leaseWaiting(_ access: CRUDAccess) async throws -> CRUDSession<Connection> {
        typed(try await pool.lease(access, hold: .acrossSuspension))
    }

    /// `query(kept:_:_:)` awaiting the server: `bind` binds the run's values, `read` reads its rows.
    /// - Throws: `CRUDSQLExeError`; what the closures throw.
    @inlinable
    nonisolated(nonsending) func query<T>(kept slot: CRUDStatementSlot, _ sql: String, bind: (inout Connection.Statement) throws -> Void,
                                          read: (Connection.Statement) throws -> T) async throws -> T {
        try await awaiting(.read) { session in try await session.withOwnedStatement(slot, sql, bind: bind, read: read) }
    }

    /// `query(_:plan:_:)` awaiting the server: `read` steps the statement and reads its rows.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`; what the closures throw.
    @inlinable
    nonisolated(nonsending) func query<T>(_ access: CRUDAccess, plan: () throws -> CRUDStatementPlan,
                                          read: (Connection.Statement) throws -> T) async throws -> T {
        try await awaiting(access) { session in
            let text = try render(try plan())
            return try await session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter, read: read)
        }
    }

    /// `count(_:)` awaiting the server.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @usableFromInline
    nonisolated(nonsending) func count(_ plan: CRUDQueryPlan) async throws -> Int {
        try await query(.read, plan: { .count(plan) }, read: Self.readCount)
    }

    /// `firstRow(_:as:)` awaiting the server.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable
    nonisolated(nonsending) func firstRow<Model: CRUDModel>(_ plan: CRUDQueryPlan, as model: Model.Type) async throws -> Model? {
        try await awaiting(.read) { session in
            let query = try firstQuery(plan, inTransaction: session.transactionDepth > 0, values: &session.rowReadValues)
            let values = session.rowReadValues
            guard let slot = query.slot else { return try await session.withStatement(query.sql, values, read: Self.readFirst) }
            return try await session.withOwnedStatement(slot, query.sql, bind: { try Self.bind(values, to: &$0) }, read: Self.readFirst)
        }
    }

    /// Every row of a join-free `plan`, awaiting the server: what `select()` reads through a cursor.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable
    nonisolated(nonsending) func rows<Model: CRUDModel>(_ plan: CRUDQueryPlan, as model: Model.Type) async throws -> [Model] {
        try await awaiting(.read) { session in
            try await readRows(of: plan, try selectQuery(plan, inTransaction: session.transactionDepth > 0), limit: nil, on: session)
        }
    }

    /// Every row of a `plan` that joins, at most `limit` (the plan's own when `nil`), awaiting the
    /// server: each join's children read first, then the root rows, all in one snapshot (the
    /// caller's transaction, or a read-only one of their own), as the cursor reads them.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable
    nonisolated(nonsending) func joinedRows<Model: CRUDModel>(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit? = nil,
                                                              as model: Model.Type) async throws -> [Model] {
        try await awaiting(.read) { session in
            let limit = limit ?? plan.limit
            let query = try selectQuery(plan, limit: limit, inTransaction: session.transactionDepth > 0)
            return try await inSnapshot(on: session) { try await readRows(of: plan, query, limit: limit, on: session) }
        }
    }

    /// The rows `query` selects of `plan`, at most `limit`, read on `session` awaiting the server:
    /// for a plan that joins, each join's children first.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable
    nonisolated(nonsending) func readRows<Model: CRUDModel>(of plan: CRUDQueryPlan,
                                                            _ query: (sql: String, parameters: [CRUDDatabaseValue]),
                                                            limit: CRUDQueryPlan.Limit?, on session: CRUDSession<Connection>) async throws -> [Model] {
        guard !plan.isJoinFree else { return try await session.withStatement(query.sql, query.parameters, read: Self.readAll) }
        let joins = try await preloadedChildren(plan, limit: limit, on: session)
        return try await session.withStatement(query.sql, query.parameters, read: { try Self.readAll($0, joins: joins) })
    }

    /// Runs `body`, whose statements read, in one snapshot on `session`: its transaction, or a
    /// read-only one of their own.
    /// - Throws: what `body` throws; `CRUDSQLExeError` when the snapshot's transaction fails.
    @usableFromInline
    nonisolated(nonsending) func inSnapshot<T>(on session: CRUDSession<Connection>,
                                               _ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        session.transactionDepth > 0 ? try await body() : try await session.transaction(dialect.snapshotTransaction, body)
    }

    /// The children of each relation `plan` joins, of the root rows within `limit`, read now,
    /// awaiting the server.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` naming the child model.
    @usableFromInline
    nonisolated(nonsending) func preloadedChildren(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, on session: CRUDSession<Connection>) async throws
        -> [JoinedChildren<Connection>?] {
        let joins = try joinedChildren(plan, limit: limit, on: session)
        for join in plan.joins { try await joins[join.relation]?.preload(join.model) }
        return joins
    }

    /// `raw(_:_:_:)` awaiting the server: the user's statement `sql` with `bindings`, whose rows
    /// `read` reads, refused afterwards when it controlled a transaction.
    /// - Throws: `CRUDSQLExeError`, `CRUDSQLGenError`; what `read` throws.
    nonisolated(nonsending) func raw<T>(_ sql: String, _ bindings: [CRUDDatabaseValue], read: (Connection.Statement) throws -> T) async throws -> T {
        try await awaiting(.write) { session in
            let text = try render(.raw(sql, bindings))
            let result = try await session.withStatement(text.sql, text.parameters, read: read)
            try session.checkRawTransactionControl(sql)
            return result
        }
    }

    /// `write(_:on:columns:plan:idsOf:bind:idColumn:row:)` awaiting the server, for a write that
    /// `canAwaitServer(writing:)`: `row` reads each row it returns (an update's `returning`), whose
    /// id observers need is result column `idColumn`.
    /// - Throws: `CRUDSQLExeError`, `CRUDEncoderError`; what the closures throw.
    nonisolated(nonsending) func write(_ kind: CRUDChangeKind, on schema: CRUDTableSchema, columns: () throws -> [Int]? = { nil },
                                       plan: (CRUDChangeCapture, _ columns: [Int]?) throws -> CRUDStatementPlan,
                                       bind: (inout Connection.Statement, _ columns: [Int]?) throws -> Void = { _, _ in },
                                       idColumn: Int = 0, row: (Connection.Statement) throws -> Void = { _ in }) async throws -> Int {
        try await awaiting(.write) { session in
            let columns = try columns()
            let capture = session.changeCapture(for: schema, writing: kind)
            let text = try render(try plan(capture, columns))
            return try await session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter,
                                                   bind: { try bind(&$0, columns) }) {
                try session.step($0, writing: kind, in: schema.name, capture: capture, idColumn: idColumn, row: row)
                return $0.changedRows
            }
        }
    }

    /// `insert(_:columns:oneRowEach:plan:idColumn:returnsRows:row:)` awaiting the server, where it
    /// `canAwaitServer(writing: .insert)`: as many rows a statement as the dialect takes (one where
    /// `oneRowEach`), and the statements in one transaction when there are several.
    /// - Throws: `CRUDSQLExeError`, `CRUDEncoderError`; what `row` throws.
    @inlinable
    nonisolated(nonsending) func insert<Model: CRUDModel>(_ instances: [Model], columns: () throws -> [Int]?, oneRowEach: Bool = false,
                                                          plan: (CRUDChangeCapture, _ rows: Int, _ columns: [Int]?) throws -> CRUDStatementPlan,
                                                          idColumn: Int = 0, returnsRows: Bool = false,
                                                          row: (Connection.Statement) throws -> Void = { _ in }) async throws -> () throws -> Int? {
        try await awaiting(.write) { session in
            let columns = Model.crudColumns(stamping: try columns(), for: .insert)
            guard !instances.isEmpty else { return { nil } }
            let instances = Model.crudStampedForInsert(instances)
            let width = columns?.count ?? Model.crudSchema.columns.count
            let perStatement = oneRowEach || width == 0 ? 1 : max(1, min(dialect.rowsPerInsert(columns: width), instances.count))
            let capture = session.changeCapture(for: Model.crudSchema, writing: .insert)
            let table = Model.crudSchema.name
            nonisolated(nonsending) func all() async throws {
                var first = 0
                while first < instances.count {
                    let count = min(perStatement, instances.count - first)
                    let text = try render(try plan(capture, count, columns))
                    try await session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter, bind: { binder in
                        for inStatement in 0 ..< count {
                            try instances[first + inStatement].crudBind(columns: columns, to: &binder, from: inStatement * width)
                        }
                    }) {
                        try session.stepInsert($0, rows: count, in: table, capture: capture, idColumn: idColumn, returnsRows: returnsRows,
                                               sql: text.sql, row: row)
                    }
                    first += count
                }
            }
            if instances.count > perStatement { try await session.transaction(.default, all) } else { try await all() }
            return lastInsertId(after: session)
        }
    }

    /// The checked plan's SQL for all its rows and the values it binds, on a session in a
    /// transaction or not.
    /// - Throws: `CRUDSQLGenError`.
    @usableFromInline
    func selectQuery(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit? = nil, inTransaction: Bool) throws
        -> (sql: String, parameters: [CRUDDatabaseValue]) {
        try plan.validate(inTransaction: inTransaction)
        return try SelectCache.shared.select(plan, limit: limit ?? plan.limit, dialect: selectDialect)
    }

    /// `page(_:size:)` awaiting the server: the count of `paged`'s rows and the page's rows (of root
    /// rows with their children, for a query that joins), read in one snapshot (the caller's
    /// transaction, or a read-only one of their own).
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` naming the model.
    @inlinable
    nonisolated(nonsending) func page<Model: CRUDModel>(_ paged: (rows: CRUDQueryPlan, limit: CRUDQueryPlan.Limit, counted: CRUDQueryPlan),
                                                        number: Int, size: Int, as model: Model.Type) async throws -> CRUDPage<Model> {
        try await awaiting(.read) { session in
            let query = try selectQuery(paged.rows, limit: paged.limit, inTransaction: session.transactionDepth > 0)
            return try await inSnapshot(on: session) {
                let counted = try render(.count(paged.counted))
                let total = try await session.withStatement(counted.sql, counted.parameters, firstParameter: counted.firstParameter,
                                                            read: Self.readCount)
                let items: [Model] = try await readRows(of: paged.rows, query, limit: paged.limit, on: session)
                return CRUDPage(items: items, total: total, number: number, size: size)
            }
        }
    }
}

/// The chain's statements meet a connection here: the one place that takes a session, renders the
/// statement's plan, prepares, binds and steps for a query or a write, and records what a write
/// changes for observers. Each entry is a boundary of the funnel: what it and its closures throw (a mistake in
/// the chain found while rendering included) is logged and reported once, as it leaves. The closures
/// are generic and non-escaping, so the model's reader or binder is specialized in the caller's
/// module.
extension CRUDExecutor {
    /// The plan's SQL in this database's dialect.
    /// - Throws: `CRUDSQLGenError` for a mistake in the chain.
    @usableFromInline
    func render(_ plan: CRUDStatementPlan) throws -> CRUDStatementText {
        try SQLBuilder.render(plan, in: dialect)
    }

    /// Runs the statement `plan` describes, which reads, on a session for `access`: `body` steps it
    /// and reads its rows.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`; what the closures throw.
    @inlinable
    func query<T>(_ access: CRUDAccess, plan: () throws -> CRUDStatementPlan, _ body: (Connection.Statement) throws -> T) throws -> T {
        try withSession(access) { session in
            let text = try render(try plan())
            return try session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter, body)
        }
    }

    /// How many rows `plan` selects, counted by the database.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    @usableFromInline
    func count(_ plan: CRUDQueryPlan) throws -> Int {
        try query(.read, plan: { .count(plan) }, Self.readCount)
    }

    /// The count a COUNT statement returns.
    /// - Throws: `CRUDSQLExeError`.
    @usableFromInline
    static func readCount(_ statement: Connection.Statement) throws -> Int {
        guard try statement.step() else { throw CRUDSQLExeError("COUNT returned no row") }
        return Int(try statement.readInt64(0))
    }

    /// Runs a query on the statement each connection keeps for it at `slot` (prepared once per
    /// connection, `sql`): `body` binds this run's values, steps it and reads its rows.
    /// - Throws: `CRUDSQLExeError`; what `body` throws.
    @inlinable
    func query<T>(kept slot: CRUDStatementSlot, _ sql: String, _ body: (Connection.Statement) throws -> T) throws -> T {
        try withSession(.read) { session in
            try session.withOwnedStatement(slot, sql, body)
        }
    }

    /// Runs the user's statement `sql` with `bindings` on a write session: `body` steps it and reads
    /// its rows. Afterwards the session checks the text for transaction control (a raw `BEGIN`),
    /// which it refuses outside its own transactions.
    /// - Throws: `CRUDSQLExeError`, `CRUDSQLGenError`; what `body` throws.
    func raw<T>(_ sql: String, _ bindings: [CRUDDatabaseValue], _ body: (Connection.Statement) throws -> T) throws -> T {
        try withSession(.write) { session in
            let text = try render(.raw(sql, bindings))
            let result = try session.withStatement(text.sql, text.parameters, body)
            try session.checkRawTransactionControl(sql)
            return result
        }
    }

    /// Runs a write of `kind` on the table of `schema` (an UPDATE or a DELETE) of the model's
    /// `columns` (worked out first; `nil` for every column or none) and returns the rows it changed,
    /// recording them for observers: by the ids the statement returns where `plan` asks for them
    /// (given the capture, which says whether any are wanted), by the ids `idsOf` selects (given the
    /// id column), locked, before the write where the database cannot return them (MySQL's UPDATE),
    /// or else as a change of the table. `bind` binds the caller's values (a model's columns); `row`
    /// reads each row the statement returns, whose id observers need is result column `idColumn`.
    /// - Throws: `CRUDSQLExeError`, `CRUDEncoderError`; what the closures throw.
    func write(_ kind: CRUDChangeKind, on schema: CRUDTableSchema, columns: () throws -> [Int]? = { nil },
               plan: (CRUDChangeCapture, _ columns: [Int]?) throws -> CRUDStatementPlan,
               idsOf: ((Int) throws -> CRUDStatementPlan)? = nil,
               bind: (inout Connection.Statement, _ columns: [Int]?) throws -> Void = { _, _ in },
               idColumn: Int = 0, row: (Connection.Statement) throws -> Void = { _ in }) throws -> Int {
        try withSession(.write) { session in
            let columns = try columns()
            let capture = session.changeCapture(for: schema, writing: kind)
            func run(_ capture: CRUDChangeCapture) throws -> Int {
                let text = try render(try plan(capture, columns))
                return try session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter) { statement in
                    var binder = statement
                    try bind(&binder, columns)
                    try session.step(statement, writing: kind, in: schema.name, capture: capture, idColumn: idColumn, row: row)
                    return statement.changedRows
                }
            }
            guard let key = capture.selectedIDColumn, let idsOf else { return try run(capture) }
            let query = try render(try idsOf(key))
            return try session.write(recording: kind, in: schema.name, idsOf: query.sql, bind: { binder in
                for (position, value) in query.parameters.enumerated() { try value.bind(to: &binder, at: query.firstParameter + position) }
            }) { try run(.unobserved) }
        }
    }

    /// Inserts `instances` (their `columns`, worked out first; every column when `nil`), as many
    /// rows to a statement as the dialect takes, or one with `oneRowEach` (the statement for `n`
    /// rows from `plan`, given the capture of the ids observers want): full statements share one
    /// prepared statement, reset in between, and a shorter last one gets its own; several
    /// statements run in one transaction. `row` reads each row a statement returns (one for each
    /// row it inserts, where the caller asked for rows: `returnsRows`), whose id observers need is
    /// result column `idColumn`. Returns a reader of the last id the database
    /// made (`Insert.lastInsertId()`). Inlinable, so that the model's generated binder is called
    /// directly in the caller's module.
    /// - Throws: `CRUDSQLExeError`, `CRUDEncoderError`; what the closures throw.
    @inlinable
    func insert<Model: CRUDModel>(_ instances: [Model], columns: () throws -> [Int]?, oneRowEach: Bool = false,
                                  plan: (CRUDChangeCapture, _ rows: Int, _ columns: [Int]?) throws -> CRUDStatementPlan,
                                  idColumn: Int = 0, returnsRows: Bool = false,
                                  row: (Connection.Statement) throws -> Void = { _ in }) throws -> () throws -> Int? {
        let columns = try reporting { Model.crudColumns(stamping: try columns(), for: .insert) }
        guard !instances.isEmpty else { return { nil } }
        let instances = Model.crudStampedForInsert(instances)
        let width = columns?.count ?? Model.crudSchema.columns.count
        let perStatement = oneRowEach || width == 0 ? 1 : max(1, min(dialect.rowsPerInsert(columns: width), instances.count))
        return try withSession(.write) { session in
            let capture = session.changeCapture(for: Model.crudSchema, writing: .insert)
            let table = Model.crudSchema.name
            func run(rows count: Int, from first: Int, times: Int) throws {
                let text = try render(try plan(capture, count, columns))
                try session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter) { statement in
                    var binder = statement
                    for time in 0 ..< times {
                        if time > 0 { try statement.reset() }
                        let start = first + time * count
                        for inStatement in 0 ..< count {
                            try instances[start + inStatement].crudBind(columns: columns, to: &binder, from: inStatement * width)
                        }
                        try session.stepInsert(statement, rows: count, in: table, capture: capture, idColumn: idColumn,
                                               returnsRows: returnsRows, sql: text.sql, row: row)
                    }
                }
            }
            func all() throws {
                let full = instances.count / perStatement
                if full > 0 { try run(rows: perStatement, from: 0, times: full) }
                let rest = instances.count - full * perStatement
                if rest > 0 { try run(rows: rest, from: full * perStatement, times: 1) }
            }
            if instances.count > 1 { try session.transaction(.default, all) } else { try all() }
            return lastInsertId(after: session)
        }
    }

    /// A reader of the last id `session`'s database made, as long as the session runs nothing else:
    /// afterwards the id may be another statement's, and the reader throws. The read is itself a
    /// statement on some databases, so a successful read moves the mark past it.
    @usableFromInline
    func lastInsertId(after session: CRUDSession<Connection>) -> () throws -> Int? {
        let mark = CRUDStatementMark(session.statementsRun)
        return { try self.reporting {
            let id = try self.withSessionItself(session) { () throws -> Int?? in
                guard session.statementsRun == mark.value else { return nil }
                let id = try session.connection.lastInsertId(using: session.catalog)
                mark.value = session.statementsRun
                return .some(id)
            }
            guard let id = id ?? nil else {
                throw CRUDSQLExeError(
                    "lastInsertId(): the connection that ran the insert has run other statements since, so its last id may be "
                        + "another's; call lastInsertId() right after the insert, or use returning(…) to get the row's values")
            }
            return id
        } }
    }
}

/// How many statements a session had run when a reader of its last id last looked.
@usableFromInline
final class CRUDStatementMark: @unchecked Sendable {
    // Read and written only inside `withSessionItself`, which holds the session alone: under its
    // gate, or taken from the pool.
    @usableFromInline var value: Int
    @usableFromInline init(_ value: Int) { self.value = value }
}

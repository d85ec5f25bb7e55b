/// What a schema change runs through: its statements, and the catalog reads it decides them by, on
/// the session the executor chose for it (`schemaChange`, `schemaTransaction`, `readingCatalog`),
/// so that they are logged and reported as every statement is.
struct CRUDSchemaSteps<Connection: CRUDConnection> {
    private let session: CRUDSession<Connection>

    init(_ session: CRUDSession<Connection>) {
        self.session = session
    }

    /// How this database spells SQL.
    var dialect: any CRUDDialect { session.dialect }

    /// Runs one schema statement.
    /// - Throws: `CRUDSQLGenError` for a statement the dialect cannot write; `CRUDSQLExeError`.
    func run(_ step: CRUDStatementPlan) throws {
        let text = try SQLBuilder.render(step, in: dialect)
        assert(text.parameters.isEmpty, "a schema statement binds no values")
        try session.run(text.sql)
    }

    /// Whether the query `plan` returns a row.
    /// - Throws: `CRUDSQLGenError` for a query the dialect cannot write; `CRUDSQLExeError`.
    func returnsRow(_ plan: CRUDStatementPlan) throws -> Bool {
        let text = try SQLBuilder.render(plan, in: dialect)
        return try session.withStatement(text.sql, text.parameters) { try $0.step() }
    }

    /// What `read` makes of the first row of the query `plan`, or `nil` when it returns none.
    /// - Throws: `CRUDSQLGenError` for a query the dialect cannot write; `CRUDSQLExeError`; what
    ///   `read` throws.
    func firstRow<T>(_ plan: CRUDStatementPlan, _ read: (Connection.Statement) throws -> T) throws -> T? {
        let text = try SQLBuilder.render(plan, in: dialect)
        return try session.withStatement(text.sql, text.parameters) { try $0.step() ? try read($0) : nil }
    }

    /// Reads every row of `model`'s table through the model, as a select does: the first value that
    /// does not fit throws. Unreported: the schema change that reads says what it means for it, and
    /// reports that once.
    /// - Throws: `CRUDDecoderError` naming the model and the column; `CRUDSQLExeError`.
    func readEveryRow<Model: CRUDModel>(_ model: Model.Type) throws {
        let text = try SQLBuilder.render(.select(CRUDQueryPlan(root: Model.self), limit: nil), in: dialect)
        try session.withStatement(text.sql, text.parameters) { statement in
            do {
                while try statement.step() { _ = try Model(crudRow: statement) }
            } catch let decoding as CRUDDecoderError {
                throw decoding.reading(Model.self)
            }
        }
    }

    /// The first value of `column` of `table` that would lose part of itself changed from `from` to
    /// `to` (`SQLBuilder.losesValues`), with its row's `key` value where the table has a key, as a
    /// message shows them; `nil` when every value converts exactly.
    /// - Throws: `CRUDSQLExeError`.
    func firstLossyValue(of column: String, in table: String, key: CRUDSchemaColumn?, from: CRUDColumnType, to: CRUDColumnType) throws
        -> CRUDLossyValue? {
        guard SQLBuilder.losesValues(from: from, to: to) else { return nil }
        let plan = CRUDStatementPlan.lossyValue(table: table, column: column, key: key?.name, from: from, to: to)
        return try firstRow(plan) { statement in
            CRUDLossyValue(table: table, column: column, keyColumn: key?.name, keyValue: try key.map { try Self.describe(statement, 0, $0.type) },
                           value: try Self.describe(statement, 1, from), type: to)
        }
    }

    /// A cell of `type` as a message shows it.
    private static func describe(_ reader: some CRUDRowReader, _ column: Int, _ type: CRUDColumnType) throws -> String {
        switch type {
        case .integer: String(try reader.readInt64(column))
        case .real: String(try reader.readReal(column))
        case .bool: String(try reader.readBool(column))
        case .text, .json: "\"\(try reader.readText(column))\""
        case .uuid: try reader.readUUID(column).uuidString
        case .date: "\(try reader.readDate(column))"
        case .blob: "\(try reader.readBlob(column).count) bytes"
        }
    }

    /// The table's columns as the database declares them, or `nil` when it has no such table.
    /// - Throws: `CRUDSQLExeError`.
    func columns(ofTable table: String) throws -> [CRUDDatabaseColumn]? {
        try session.connection.columns(ofTable: table, using: session.catalog)
    }

    /// The names of the table's constraints.
    /// - Throws: `CRUDSQLExeError`.
    func constraintNames(ofTable table: String) throws -> Set<String> {
        try session.connection.constraintNames(ofTable: table, using: session.catalog)
    }

    /// The table's `CREATE TABLE` statement as the database keeps it, where it keeps one (SQLite).
    /// - Throws: `CRUDSQLExeError`.
    func tableDefinition(ofTable table: String) throws -> String? {
        try session.connection.tableDefinition(ofTable: table, using: session.catalog)
    }

    /// The table's indexes: the statement that makes each, and its columns.
    /// - Throws: `CRUDSQLExeError`.
    func indexes(ofTable table: String) throws -> [(name: String, sql: String, columns: [String])] {
        try session.connection.indexes(ofTable: table, using: session.catalog)
    }

    /// The largest key the table has given, where the database keeps such a counter.
    /// - Throws: `CRUDSQLExeError`.
    func keyCounter(ofTable table: String) throws -> Int64? {
        try session.connection.keyCounter(ofTable: table, using: session.catalog)
    }

    /// Raises the table's key counter to `value`.
    /// - Throws: `CRUDSQLExeError`.
    func raiseKeyCounter(ofTable table: String, to value: Int64) throws {
        try session.connection.raiseKeyCounter(ofTable: table, to: value, using: session.catalog)
    }

    /// Whether dropping a table now would run its foreign keys' actions on other tables.
    /// - Throws: `CRUDSQLExeError`.
    func dropRunsForeignKeyActions() throws -> Bool {
        try session.connection.dropRunsForeignKeyActions(using: session.catalog)
    }
}

extension CRUDExecutor {
    /// Runs `body`'s catalog reads on a session for `access`.
    /// - Throws: what `body` throws.
    func readingCatalog<T>(_ access: CRUDAccess, _ body: (CRUDSchemaSteps<Connection>) throws -> T) throws -> T {
        try withSession(access) { try body(CRUDSchemaSteps($0)) }
    }
}

/// A session running catalog reads: through `withStatement` and `run`, so the query log and the
/// error boundary see them as they see every other statement.
struct CRUDSessionCatalog<Connection: CRUDConnection>: CRUDCatalogRunner {
    typealias Statement = Connection.Statement

    let session: CRUDSession<Connection>

    func forEachRow(_ sql: String, _ parameters: [CRUDDatabaseValue], _ row: (Connection.Statement) throws -> Void) throws {
        try session.withStatement(sql, parameters) { statement in
            while try statement.step() { try row(statement) }
        }
    }

    func execute(_ sql: String) throws {
        try session.run(sql)
    }
}

extension CRUDSession {
    /// The session as the runner of a driver's catalog reads.
    var catalog: CRUDSessionCatalog<Connection> { CRUDSessionCatalog(session: self) }
}

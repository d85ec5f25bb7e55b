@_spi(CRUDDriver) import CRUD

/// A connection that records every statement with its bound values instead of running it, so that
/// a test can assert the SQL and parameters a chain produces without a database:
///
///     let db = Database(configuration: RecordingConfiguration())
///     _ = try db.table(Person.self).where(\Person.age > 30).select()
///     #expect(db.configuration.connection.executions.last?.bindings == [.integer(30)])
///
/// Queries return the rows queued in `queuedRows` for the next statement prepared (none by default;
/// `SELECT COUNT(*)` returns 0). Transactions are followed as a database would follow them.
/// Use it from one test (one thread) at a time.
public final class RecordingConnection: CRUDConnection {
    /// One statement as it was run: its SQL and the values bound to it, in parameter order (`.null`
    /// for a parameter left unbound).
    public struct Execution: Equatable, Sendable {
        /// The statement's SQL text, as the dialect wrote it.
        public var sql: String
        /// The values bound to its parameters, in order.
        public var bindings: [CRUDDatabaseValue]

        /// An execution to compare recorded ones with.
        public init(sql: String, bindings: [CRUDDatabaseValue]) {
            self.sql = sql
            self.bindings = bindings
        }
    }

    public let dialect: any CRUDDialect
    @_spi(CRUDDriver) public let isUsable = true
    /// Follows the recorded BEGIN, COMMIT and ROLLBACK, as a database would.
    @_spi(CRUDDriver) public private(set) var transactionStatus = CRUDTransactionStatus.none
    /// Every statement run so far, in order.
    public private(set) var executions: [Execution] = []
    /// The rows the next statement prepared returns, one array of column values per row, in the
    /// order the query selects its columns.
    public var queuedRows: [[CRUDDatabaseValue]] = []
    /// The unique keys an upsert finds, by table: key name to columns, the answer to the dialect's
    /// catalog query of them (which is recorded, as any statement). An upsert whose target is not
    /// among its table's keys throws `.conflictTargetNotUnique`, as against a database.
    public var uniqueKeys: [String: [String: Set<String>]] = [:]

    /// The dialect's catalog query of a table's unique keys, which `uniqueKeys` answers.
    private let uniqueKeysSQL: String

    /// A connection speaking `dialect`.
    public init(dialect: any CRUDDialect = RecordingDialect()) {
        self.dialect = dialect
        uniqueKeysSQL = dialect.uniqueKeysQuery(ofTable: "").sql
    }

    /// The SQL of every execution, in order.
    public var statements: [String] { executions.map(\.sql) }

    /// Forgets what was recorded, so that a test can look at what follows alone.
    public func clear() {
        executions = []
    }

    @_spi(CRUDDriver) public func prepare(_ sql: String) throws -> RecordingStatement {
        guard sql == uniqueKeysSQL else { return RecordingStatement(sql: sql, rows: takeRows(for: sql)) }
        // The catalog's answer depends on the table, which is bound after this.
        return RecordingStatement(sql: sql, rows: []) { [uniqueKeys, dialect] bound in
            guard let keys = uniqueKeys.first(where: { dialect.uniqueKeysQuery(ofTable: $0.key).parameters == bound })?.value else { return [] }
            return keys.sorted { $0.key < $1.key }.flatMap { key in key.value.sorted().map { [.text(key.key), .text($0)] } }
        }
    }

    /// A statement kept across runs (a prepared query's, a repeated one-row read's): each run, up
    /// to its reset, is recorded as an execution, and takes the rows queued by then.
    public func prepareOwned(_ sql: String) throws -> RecordingStatement {
        let statement = RecordingStatement(sql: sql, rows: takeRows(for: sql))
        statement.owner = self
        return statement
    }

    /// The rows a run of `sql` returns: those queued, or a count of 0.
    func takeRows(for sql: String) -> [[CRUDDatabaseValue]] {
        let rows = sql.hasPrefix("SELECT COUNT(*)") ? [[CRUDDatabaseValue.integer(0)]] : queuedRows
        queuedRows = []
        return rows
    }

    /// Records a run of a kept statement.
    func recordRun(of statement: RecordingStatement) {
        executions.append(Execution(sql: statement.sql, bindings: statement.boundValues))
    }

    public func discard(_ statement: RecordingStatement) {}

    @_spi(CRUDDriver) public func release(_ statement: RecordingStatement) {
        executions.append(Execution(sql: statement.sql, bindings: statement.boundValues))
    }

    @_spi(CRUDDriver) public func execute(_ sql: String) throws {
        executions.append(Execution(sql: sql, bindings: []))
        if sql == "BEGIN" { transactionStatus = .open }
        if sql == "COMMIT" || sql == "ROLLBACK" { transactionStatus = .none }
    }

    @_spi(CRUDDriver) public func reconnect() throws {}

    @_spi(CRUDDriver) public func lastInsertId(using runner: some CRUDCatalogRunner<Statement>) throws -> Int? { nil }

    @_spi(CRUDDriver) public func columns(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [CRUDDatabaseColumn]? { nil }

}

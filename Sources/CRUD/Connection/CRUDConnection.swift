/// One open connection to a database, as a driver implements it. The executor prepares
/// statements, binds their parameters, steps through rows and reads them, all through this
/// protocol; it uses a connection from one thread at a time, and keeps the transaction state itself.
/// For drivers: out of the user documentation.
@_documentation(visibility: internal)
public protocol CRUDConnection: AnyObject, SendableMetatype {
    /// The driver's prepared statement, which binds parameters and reads rows.
    associatedtype Statement: CRUDStatement

    /// How this database spells SQL that differs between databases.
    var dialect: any CRUDDialect { get }

    /// Whether the connection can still be used: `false` once a server connection was lost. The pool
    /// closes such a connection and opens a new one in its place.
    @_spi(CRUDDriver) var isUsable: Bool { get }

    /// Whether the pool should close the connection as it comes back and open a new one in its
    /// place, though it works: a connection to a standby's reads that landed on the primary, or
    /// whose standby was promoted, replaced so that reads go back to a standby. The default: never.
    @_spi(CRUDDriver) var wantsReplacing: Bool { get }

    /// Connects again after `isUsable` turned false. The executor calls it only outside a
    /// transaction, before the next statement.
    /// - Throws: `CRUDSQLExeError` when the database still cannot be reached.
    @_spi(CRUDDriver) func reconnect() throws

    /// The statements the connection ran to open or to reconnect (its session settings, a read that
    /// checks the file is a database), in order, since it was last asked; they run before any
    /// session has the connection, whose query log they would otherwise miss. The session logs them
    /// when it takes the connection and after each reconnect. The default has none.
    @_spi(CRUDDriver) func takeOpeningStatements() -> [String]

    /// Whether the database session has a transaction open, as the database itself reports it. The
    /// engine compares it with `transactionDepth` so that a transaction the database ended
    /// underneath (a lost connection, an automatic rollback) is never taken for an open one.
    @_spi(CRUDDriver) var transactionStatus: CRUDTransactionStatus { get }

    /// A prepared statement for `sql`, reused from the connection's cache when it has one that is
    /// not in use. The caller owns it until it passes it to `release(_:)`.
    /// - Throws: `CRUDSQLExeError` when the database rejects the SQL.
    @_spi(CRUDDriver) func prepare(_ sql: String) throws -> Statement

    /// Gives a statement back: resets it, clears its bindings, and keeps it for reuse.
    @_spi(CRUDDriver) func release(_ statement: Statement)

    /// Runs SQL that takes no parameters and returns no rows (`BEGIN`, `PRAGMA …`, DDL).
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func execute(_ sql: String) throws

    /// The row id of the last row inserted on this connection, where the database has one; a
    /// statement that asks the database for it runs on `runner`, so the query log shows it.
    @_spi(CRUDDriver) func lastInsertId(using runner: some CRUDCatalogRunner<Statement>) throws -> Int?

    /// The columns of a table as the database declares them, in table order, or `nil` when the
    /// table does not exist.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func columns(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [CRUDDatabaseColumn]?

    /// For a database that reports each row change as it happens (SQLite's update hook): records
    /// every insert, update and delete this connection makes, whatever SQL made it, into `recorder`
    /// (which ignores them while nobody observes), and returns `true`. The default returns `false`,
    /// and the executor learns of the chain's changes from the ids its writes return.
    @_spi(CRUDDriver) func recordChanges(into recorder: CRUDChangeRecorder) -> Bool

    /// Runs `body`, which opens and commits a transaction, with foreign-key enforcement off around
    /// it where the database can turn it off only outside a transaction (SQLite): a transaction that
    /// rebuilds a table must not run the ON DELETE actions of the table it drops. The default runs
    /// `body` as it is.
    /// - Throws: what `body` throws; `CRUDSQLExeError`.
    @_spi(CRUDDriver) func withForeignKeysOff<T>(using runner: some CRUDCatalogRunner<Statement>, _ body: () throws -> T) throws -> T

    /// Whether dropping a table now would run the ON DELETE actions of foreign keys that reference
    /// it. The default is `false` (databases that refuse to drop a referenced table).
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func dropRunsForeignKeyActions(using runner: some CRUDCatalogRunner<Statement>) throws -> Bool

    /// Checks every foreign key of the database, as a transaction run by `withForeignKeysOff` does
    /// before it commits. The default does nothing (databases that never stop enforcing them).
    /// - Throws: `CRUDSQLExeError` of kind `.foreignKeyViolation` naming the first rows that violate one.
    @_spi(CRUDDriver) func checkForeignKeys(using runner: some CRUDCatalogRunner<Statement>) throws

    /// A table's own indexes (not those of its key and constraints): each one's name, the statement
    /// that makes it and the columns it covers: what a table rebuild creates again, and what the
    /// check against a frozen schema compares. The default has none.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func indexes(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [(name: String, sql: String, columns: [String])]

    /// The `CREATE TABLE` statement a database that rebuilds tables keeps for `table` (SQLite's
    /// `sqlite_master`, which appends what `ADD COLUMN` adds), or `nil`: how `alterTable` tells
    /// that the table already has the model's constraints, and whether it is created with
    /// `neverReusedKeyClause`. The default is `nil`.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func tableDefinition(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> String?

    /// The largest database-made key `table` has given, where the database keeps it apart from the
    /// rows (SQLite's `sqlite_sequence`, for a table created with `neverReusedKeyClause`), or `nil`.
    /// The default is `nil`.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func keyCounter(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Int64?

    /// Raises `table`'s key counter to at least `value`: after a rebuild, so that the rebuilt table
    /// never gives again a key its old self gave. The default does nothing.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func raiseKeyCounter(ofTable table: String, to value: Int64, using runner: some CRUDCatalogRunner<Statement>) throws

    /// The names of a table's constraints: what `alterTable` adds the model's missing ones by, and the
    /// check against a frozen schema compares. The default has none.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) func constraintNames(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Set<String>

    /// Prepares `sql` as a statement the caller keeps for as long as it likes, outside the
    /// connection's statement cache (a prepared query's, per connection): give it up with
    /// `discard(_:)`, not `release(_:)`.
    /// - Throws: `CRUDSQLExeError` when the database refuses the SQL.
    func prepareOwned(_ sql: String) throws -> Statement

    /// Gives up a statement from `prepareOwned(_:)`, freeing what the database holds for it.
    func discard(_ statement: Statement)

    /// Runs `body` with the connection's server session kept for it from start to end, for work
    /// that relies on session state between statements (a session-level lock): a driver whose
    /// sessions may share server connections holds one throughout. The default runs `body`.
    /// - Throws: what `body` throws; `CRUDSQLExeError` when no server session can be had.
    @_spi(CRUDDriver) func keepingServerSession<T>(_ body: () throws -> T) throws -> T

    /// Asks the server whether the connection still works, and marks it lost (`isUsable` false)
    /// when it does not: after another connection of the pool was found lost. The default does
    /// nothing.
    @_spi(CRUDDriver) func probe()

    /// `probe()` without blocking a thread, for an async call in its own task: waits for the
    /// server's answer on `CRUDEventLoop`. The default calls `probe()`.
    @_spi(CRUDDriver) nonisolated(nonsending) func probeAwaiting() async

    /// `reconnect()` without blocking a thread, for an async call in its own task: connects waiting
    /// on `CRUDEventLoop`, up to the driver's connect timeout. The default calls `reconnect()`.
    /// - Throws: `CRUDSQLExeError` when the database still cannot be reached.
    @_spi(CRUDDriver) nonisolated(nonsending) func reconnectAwaiting() async throws

    /// Makes the statement running on this connection stop with an error, for a cancelled task or
    /// a statement past its timeout; nothing when none runs. Called from another thread while one
    /// is inside a call of this connection: it may use only what the client library makes safe
    /// for that (`sqlite3_interrupt`, `PQcancel`, a `KILL QUERY` sent over a connection of its own).
    @_spi(CRUDDriver) func interrupt()

    /// The call that `interrupt()` stopped has ended: what runs next on the connection (a statement
    /// of the transaction's stream, the next call) must run as usual. Called by the thread that
    /// uses the connection.
    @_spi(CRUDDriver) func interruptEnded()

    /// Whether the driver's statements wait only on local work (a file), never on a network: an
    /// async call then runs them on its own thread when a connection is free at once, rather than
    /// hopping to the connection's queue and back (SQLite). Such a driver stops a statement of a
    /// caller's work once the caller's task is cancelled (`beginCallersWork(bounded:)`). The
    /// default, for servers, is `false`.
    @_spi(CRUDDriver) var runsOnCallersThread: Bool { get }

    /// Whether the async `execute(_:)` waits for the server on events (`CRUDEventLoop`) rather than
    /// blocking a thread: an async read then runs in the caller's own task, holding no thread while
    /// the server works. The default is `false`.
    @_spi(CRUDDriver) var executesWithoutBlocking: Bool { get }

    /// Runs `statement`, bound, without blocking a thread: sends it, suspends the task until the
    /// server's whole answer is in (`CRUDEventLoop`), and keeps the answer in the statement, whose
    /// `step()` then moves through its rows without waiting. Called only where
    /// `executesWithoutBlocking` is true, never twice for one run of the statement. `reading`: the
    /// statement only reads, outside a transaction, so it depends on no session state and the
    /// driver may send it on a server connection other sessions use at the same time.
    /// - Throws: `CRUDSQLExeError` when the statement fails or the connection is lost.
    @_spi(CRUDDriver) nonisolated(nonsending) func execute(_ statement: Statement, reading: Bool) async throws

    /// `prepare(_:)` without blocking a thread: a statement the cache lacks is prepared waiting on
    /// `CRUDEventLoop`. Called only where `executesWithoutBlocking` is true.
    /// - Throws: as `prepare(_:)`.
    @_spi(CRUDDriver) nonisolated(nonsending) func prepareAwaiting(_ sql: String) async throws -> Statement

    /// `prepareOwned(_:)` without blocking a thread. Called only where `executesWithoutBlocking` is true.
    /// - Throws: as `prepareOwned(_:)`.
    @_spi(CRUDDriver) nonisolated(nonsending) func prepareOwnedAwaiting(_ sql: String) async throws -> Statement

    /// `execute(_:)` for SQL that takes no parameters and returns no rows (a transaction's `BEGIN`,
    /// `COMMIT`, savepoints), without blocking a thread. Called only where
    /// `executesWithoutBlocking` is true.
    /// - Throws: `CRUDSQLExeError` when a statement of `sql` fails or the connection is lost.
    @_spi(CRUDDriver) nonisolated(nonsending) func execute(_ sql: String) async throws

    /// The statements that run from now on are an async call's, run on its own thread, in its task
    /// (`runsOnCallersThread`): one that runs while the task is cancelled fails as interrupted, as
    /// after `interrupt()`, until `interruptEnded()` or `endCallersWork()`; when `bounded`, one that
    /// runs past the driver's budget fails as interrupted too, and `endCallersWork()` then says so.
    /// The default does neither.
    @_spi(CRUDDriver) func beginCallersWork(bounded: Bool)

    /// Ends what `beginCallersWork(bounded:)` began; `true` when the budget stopped a statement. By
    /// the thread that uses the connection.
    @_spi(CRUDDriver) func endCallersWork() -> Bool

    /// Told the id of each row a chain insert returned (in its `RETURNING`, while observers are
    /// attached), in order: where the driver cannot learn `lastInsertId` of such a statement itself
    /// (MySQL). The default does nothing.
    func insertReturned(id: Int64)
}

extension CRUDConnection {
    @_spi(CRUDDriver) public func recordChanges(into recorder: CRUDChangeRecorder) -> Bool { false }
    @_spi(CRUDDriver) public func withForeignKeysOff<T>(using runner: some CRUDCatalogRunner<Statement>, _ body: () throws -> T) throws -> T { try body() }
    @_spi(CRUDDriver) public func dropRunsForeignKeyActions(using runner: some CRUDCatalogRunner<Statement>) throws -> Bool { false }
    @_spi(CRUDDriver) public func checkForeignKeys(using runner: some CRUDCatalogRunner<Statement>) throws {}
    @_spi(CRUDDriver) public func indexes(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [(name: String, sql: String, columns: [String])] { [] }
    @_spi(CRUDDriver) public func constraintNames(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Set<String> { [] }
    @_spi(CRUDDriver) public func tableDefinition(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> String? { nil }
    @_spi(CRUDDriver) public func keyCounter(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Int64? { nil }
    @_spi(CRUDDriver) public func raiseKeyCounter(ofTable table: String, to value: Int64, using runner: some CRUDCatalogRunner<Statement>) throws {}
    public func insertReturned(id: Int64) {}
    @_spi(CRUDDriver) public func probe() {}
    @_spi(CRUDDriver) public var wantsReplacing: Bool { false }
    @_spi(CRUDDriver) public nonisolated(nonsending) func probeAwaiting() async { probe() }
    @_spi(CRUDDriver) public nonisolated(nonsending) func reconnectAwaiting() async throws { try reconnect() }
    @_spi(CRUDDriver) public func keepingServerSession<T>(_ body: () throws -> T) throws -> T { try body() }
    @_spi(CRUDDriver) public func interrupt() {}
    @_spi(CRUDDriver) public func interruptEnded() {}
    @_spi(CRUDDriver) public var runsOnCallersThread: Bool { false }
    @_spi(CRUDDriver) public var executesWithoutBlocking: Bool { false }

    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ statement: Statement, reading: Bool) async throws {
        throw Self.cannotAwait(statement.sql)
    }
    @_spi(CRUDDriver) public nonisolated(nonsending) func execute(_ sql: String) async throws {
        throw Self.cannotAwait(sql)
    }
    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareAwaiting(_ sql: String) async throws -> Statement {
        throw Self.cannotAwait(sql)
    }
    @_spi(CRUDDriver) public nonisolated(nonsending) func prepareOwnedAwaiting(_ sql: String) async throws -> Statement {
        throw Self.cannotAwait(sql)
    }
    private static func cannotAwait(_ sql: String) -> CRUDSQLExeError {
        CRUDSQLExeError("\(Self.self) cannot run a statement without blocking (its executesWithoutBlocking is false)", sql: sql)
    }
    @_spi(CRUDDriver) public func beginCallersWork(bounded: Bool) {}
    @_spi(CRUDDriver) public func endCallersWork() -> Bool { false }
    @_spi(CRUDDriver) public func takeOpeningStatements() -> [String] { [] }

    /// The columns of a table as the database declares them, in table order, or `nil` when the
    /// table does not exist, read on this connection.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) public func columns(ofTable table: String) throws -> [CRUDDatabaseColumn]? {
        try columns(ofTable: table, using: CRUDConnectionRunner(self))
    }

    /// The column names of a table in table order, or `nil` when the table does not exist, read on
    /// this connection.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) public func columnNames(ofTable table: String) throws -> [String]? {
        try columns(ofTable: table)?.map(\.name)
    }

    /// The `CREATE INDEX` statements of a table's own indexes with their columns (see
    /// `indexes(ofTable:using:)`), read on this connection.
    /// - Throws: `CRUDSQLExeError`.
    @_spi(CRUDDriver) public func indexes(ofTable table: String) throws -> [(name: String, sql: String, columns: [String])] {
        try indexes(ofTable: table, using: CRUDConnectionRunner(self))
    }
}

/// A database session's transaction state.
@_spi(CRUDDriver) public enum CRUDTransactionStatus: Sendable {
    /// No transaction is open (or the session is gone).
    case none
    /// A transaction is open and usable.
    case open
    /// A transaction is open but failed: the database ignores statements until it is rolled back
    /// (PostgreSQL after an error outside a savepoint).
    case aborted
}

/// A prepared statement: parameters are bound by position, then `step()` runs it and moves
/// through its rows, which are read by position through `CRUDRowReader`. For drivers: out of the
/// user documentation.
@_documentation(visibility: internal)
public protocol CRUDStatement: AnyObject, CRUDBinder, CRUDRowReader {
    /// The SQL text it was prepared from.
    @_spi(CRUDDriver) var sql: String { get }

    /// Runs the statement (on the first call) and moves to the next row.
    /// - Returns: `false` when there are no more rows.
    /// - Throws: `CRUDSQLExeError` when execution fails.
    func step() throws -> Bool

    /// How many columns each result row has.
    @_spi(CRUDDriver) var resultColumnCount: Int { get }

    /// The name of result column `column`.
    @_spi(CRUDDriver) func resultColumnName(_ column: Int) -> String

    /// Makes the statement ready to run again; parameters are bound anew before it does.
    /// - Throws: `CRUDSQLExeError`.
    func reset() throws

    /// How many rows the last execution inserted, updated or deleted.
    var changedRows: Int { get }
}

/// A driver's description of a database: it opens the first connection when created (so a wrong
/// path or password fails there) and provides the executor, with its pool, that every `Database`
/// made from it shares.
public protocol DatabaseConfigurationProtocol: AnyObject, Sendable {
    /// The driver's connection type.
    associatedtype Connection: CRUDConnection
    /// Runs operations on this database's connections.
    @_spi(CRUDDriver) var executor: CRUDExecutor<Connection> { get }
}

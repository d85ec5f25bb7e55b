@_spi(CRUDDriver) import CRUD

/// Opens a SQLite database: `Database(configuration: try SQLiteDatabaseConfiguration(path))`.
///
/// Connections use write-ahead logging (for files), `synchronous = NORMAL`, foreign keys on,
/// case-sensitive `LIKE` (as in PostgreSQL), and wait up to `busyTimeout` for a lock held by another
/// connection or process.
///
/// A file database has one writer connection and up to `maxReaders` reader connections, opened as
/// needed: writes and transactions take the writer one at a time, so this program's own writers
/// never meet `SQLITE_BUSY`; queries run on readers, concurrently with each other and with a write,
/// each on a consistent snapshot. An in-memory database (`":memory:"`) has one connection, which
/// every caller uses in turn.
public final class SQLiteDatabaseConfiguration: DatabaseConfigurationProtocol {
    @_spi(CRUDDriver) public let executor: CRUDExecutor<SQLiteConnection>
    /// The path or URI the database was opened with.
    public let path: String

    /// Opens (creating if needed) the database at `name`: a file path, a `file:` URI, or `":memory:"`.
    /// - Parameters:
    ///   - name: the database's file path, `file:` URI or `":memory:"`.
    ///   - busyTimeout: how long to wait for a lock another connection or process holds, and for a
    ///     free connection of this database's own pool.
    ///   - maxReaders: how many reader connections may run queries at once.
    ///   - statementTimeout: how long a call's statements may run before they are interrupted and
    ///     the call throws `CRUDSQLExeError` of kind `.timedOut`; `nil`, the default, sets no limit.
    /// - Throws: `CRUDSQLExeError` naming the path when it cannot be opened: a missing directory,
    ///   a file that is not a database, a locked database.
    public init(_ name: String, busyTimeout: Duration = .seconds(5), maxReaders: Int = 4, statementTimeout: Duration? = nil) throws {
        path = name
        let writer = try SQLiteConnection(path: name, busyTimeout: busyTimeout)
        let inMemory = name.isEmpty || name == ":memory:" || name.hasPrefix("file::memory:") || name.contains("mode=memory")
        executor = try CRUDExecutor(
            layout: inMemory ? .single : .writerAndReaders(maxReaders: max(1, maxReaders)),
            first: writer, timeout: busyTimeout, describe: "SQLite database at \(name)", peer: CRUDPeer(namespace: name),
            statementTimeout: statementTimeout
        ) { role in
            try SQLiteConnection(path: name, busyTimeout: busyTimeout, queryOnly: role == .reader)
        }
    }
}

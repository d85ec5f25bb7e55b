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
///
/// A service that alone uses its database file can say so with `exclusiveToProcess`: concurrent
/// reads then coordinate in memory instead of through file locks (see its parameter).
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
    ///   - exclusiveToProcess: whether this process alone opens the file while the database is open.
    ///     Its first connection then locks the file against every other process (SQLite's
    ///     `unix-excl` VFS), and this database's connections keep their write-ahead-log index in
    ///     memory: each read transaction starts and ends without a file-lock system call. With the
    ///     default, concurrent async reads from Swift's two-thread pool on this machine wait for each
    ///     other in those calls (4 tasks × 10,000 lookups: 2.56× raw sqlite3; exclusive: 1.17×). Other
    ///     processes (the `sqlite3` shell, a backup tool, a second copy of the service) cannot read
    ///     or write the file until this database shuts down: they fail with "database is locked".
    ///     Ignored for an in-memory database. (`SQLiteProcess.useSpinningMutexes()` narrows that wait
    ///     for every database, for the whole process.)
    /// - Throws: `CRUDSQLExeError` naming the path when it cannot be opened: a missing directory,
    ///   a file that is not a database, a locked database; with `exclusiveToProcess`, a file another
    ///   process has open, or a `file:` URI that names a VFS of its own.
    public init(_ name: String, busyTimeout: Duration = .seconds(5), maxReaders: Int = 4, statementTimeout: Duration? = nil,
                exclusiveToProcess: Bool = false) throws {
        path = name
        let inMemory = name.isEmpty || name == ":memory:" || name.hasPrefix("file::memory:") || name.contains("mode=memory")
        let vfs = exclusiveToProcess && !inMemory ? SQLiteConnection.processExclusiveVFS : nil
        if vfs != nil, name.hasPrefix("file:"), name.contains("vfs=") {
            throw CRUDSQLExeError("cannot open SQLite database at \(name) exclusiveToProcess: the URI names a VFS of its own, "
                                  + "and SQLite would use it instead of unix-excl; drop its vfs= parameter or exclusiveToProcess")
        }
        let writer = try SQLiteConnection(path: name, busyTimeout: busyTimeout, vfs: vfs)
        executor = try CRUDExecutor(
            layout: inMemory ? .single : .writerAndReaders(maxReaders: max(1, maxReaders)),
            first: writer, timeout: busyTimeout, describe: "SQLite database at \(name)", peer: CRUDPeer(namespace: name),
            statementTimeout: statementTimeout
        ) { role in
            try SQLiteConnection(path: name, busyTimeout: busyTimeout, queryOnly: role == .reader, vfs: vfs)
        }
    }
}

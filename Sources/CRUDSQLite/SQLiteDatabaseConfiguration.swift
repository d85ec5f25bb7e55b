import CRUD

/// Opens a SQLite database: `Database(configuration: try SQLiteDatabaseConfiguration(path))`.
///
/// The connection uses write-ahead logging (for files), `synchronous = NORMAL`, foreign keys on,
/// case-sensitive `LIKE` (as in PostgreSQL), and waits up to `busyTimeout` for a lock held by
/// another connection.
public final class SQLiteDatabaseConfiguration: DatabaseConfigurationProtocol {
    public let connection: SQLiteConnection

    /// Opens (creating if needed) the database at `name`: a file path, or `":memory:"`.
    /// - Throws: `CRUDSQLExeError` naming the path when it cannot be opened: a missing directory,
    ///   a file that is not a database, a locked database.
    public init(_ name: String, busyTimeout: Duration = .seconds(5)) throws {
        connection = try SQLiteConnection(path: name, busyTimeout: busyTimeout)
    }
}

/// The size of a server database's connection pool and how long a caller waits for a free
/// connection: `PostgresPoolOptions` and `MySQLPoolOptions` are this.
public struct CRUDPoolOptions: Sendable {
    /// Connections kept open even when idle (the first one is opened at once).
    public var minimumConnections: Int
    /// The most connections open at once.
    public var maximumConnections: Int
    /// How long a caller waits for a free connection before `CRUDSQLExeError`; on MySQL also how
    /// long a schema change made beside an open transaction waits for a table's lock.
    public var timeout: Duration

    /// Options with the given limits; by default 1 to 8 connections and a 10-second wait.
    public init(minimumConnections: Int = 1, maximumConnections: Int = 8, timeout: Duration = .seconds(10)) {
        self.minimumConnections = minimumConnections
        self.maximumConnections = maximumConnections
        self.timeout = timeout
    }
}

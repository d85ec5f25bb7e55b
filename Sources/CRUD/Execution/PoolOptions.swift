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
    /// Whether the configuration connects on the first call rather than in its initializer, so
    /// that a program starts while its server is down (and `Database.ping()` says when it can be
    /// reached). Off by default: the initializers connect at once and throw when they cannot, as
    /// Perfect-CRUD's do. On MySQL it writes the SQL that MariaDB and MySQL both take, since which
    /// server answers is not known beforehand (see `MySQLDatabaseConfiguration`).
    public var connectsOnFirstUse: Bool
    /// How long opening a connection keeps trying a server it cannot reach (refused, unknown host,
    /// timed out), waiting 50 ms after the first failure and twice as long each time after, up to
    /// 2 s; a wrong password fails at once. Zero, the default, tries once. The caller that needs
    /// the connection waits meanwhile (a task waits without holding a thread of Swift's pool).
    public var connectRetry: Duration
    /// How long a call's statements may run: past it the server is told to cancel the running
    /// statement, and the call throws `CRUDSQLExeError` of kind `.timedOut`, committing nothing.
    /// `nil`, the default, sets no limit; `Database.withStatementTimeout` sets one for a task.
    public var statementTimeout: Duration?

    /// Options with the given limits; by default 1 to 8 connections, a 10-second wait, connecting
    /// at once and trying once, and no statement timeout.
    public init(minimumConnections: Int = 1, maximumConnections: Int = 8, timeout: Duration = .seconds(10),
                connectsOnFirstUse: Bool = false, connectRetry: Duration = .zero, statementTimeout: Duration? = nil) {
        self.minimumConnections = minimumConnections
        self.maximumConnections = maximumConnections
        self.timeout = timeout
        self.connectsOnFirstUse = connectsOnFirstUse
        self.connectRetry = connectRetry
        self.statementTimeout = statementTimeout
    }
}

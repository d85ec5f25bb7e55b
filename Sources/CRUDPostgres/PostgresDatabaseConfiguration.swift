@_spi(CRUDDriver) import CRUD

/// Connects to a PostgreSQL server:
/// `Database(configuration: try PostgresDatabaseConfiguration(database: "app", host: "localhost"))`.
///
/// Connections come from a pool of between `minimumConnections` and `maximumConnections`; a caller
/// waits up to `poolTimeout` for a free one. A connection broken by a server restart is replaced.
/// A server that is down when the program starts: set the pool's `connectsOnFirstUse` (and a
/// `connectRetry` window), and ask `Database.ping()` when it answers.
///
/// `serverConnections` lets the pool's sessions share fewer connections to the server: async reads
/// outside a transaction then share them at once through libpq's pipeline mode, while a
/// transaction, a write or a synchronous call holds a free one alone (a session waits only while
/// none is free). Session state set by raw SQL (`SET`, temporary tables) is then the shared
/// connection's; CRUDPostgres's overview tells what it guarantees and costs.
///
/// `transactionPooling` is for a server reached through a pooler in transaction mode (pgbouncer's
/// `pool_mode = transaction`), which may hand each transaction to another server connection:
/// statements are then sent whole at every run rather than prepared under a name, the migration
/// lock is the run's transaction's, and `Insert.lastInsertId()` works only inside the transaction
/// that inserted (use `returning(…)` outside one); CRUDPostgres's overview tells what else changes.
public final class PostgresDatabaseConfiguration: DatabaseConfigurationProtocol {
    @_spi(CRUDDriver) public let executor: CRUDExecutor<PostgresConnection>
    /// What the first connection reached: `database "app" at host:port`; with the pool's
    /// `connectsOnFirstUse`, what the parameters name.
    public let target: String

    /// Connects with Perfect-CRUD's parameters; those left `nil` take libpq's defaults (its `PG*`
    /// environment variables, then its built-in values).
    /// - Parameters:
    ///   - database: the database to connect to.
    ///   - host: the server's host name or address (a directory for a Unix socket).
    ///   - port: the server's port; libpq's default (5432) when `nil`.
    ///   - username: the role to connect as; libpq's default (the system user) when `nil`.
    ///   - password: the role's password, when the server asks for one.
    ///   - connectTimeout: seconds to wait for the server before giving up.
    ///   - pool: how many connections to keep and how long a caller waits for a free one.
    ///   - serverConnections: at most this many connections to the server, shared by the pool's
    ///     sessions; `nil` (the default): each session has its own.
    ///   - transactionPooling: `true` when a pooler in transaction mode stands between the pool and
    ///     the server (see above); it cannot go with `serverConnections`.
    /// - Throws: `CRUDSQLExeError` naming the database, host and port and saying what failed:
    ///   refused connection, unknown host, wrong password, missing database, timeout; or saying that
    ///   `transactionPooling` and `serverConnections` were both asked for.
    public convenience init(database: String, host: String, port: Int? = nil, username: String? = nil,
                            password: String? = nil, connectTimeout: Int = 10, pool: PostgresPoolOptions = .init(),
                            serverConnections: Int? = nil, transactionPooling: Bool = false) throws {
        var parameters = ["dbname": database, "host": host, "connect_timeout": String(connectTimeout)]
        parameters["port"] = port.map(String.init)
        parameters["user"] = username
        parameters["password"] = password
        try self.init(parameters: parameters, pool: pool, serverConnections: serverConnections, transactionPooling: transactionPooling)
    }

    /// Connects to whichever of several servers `target` asks for, trying them in order (libpq's
    /// multiple hosts with `target_session_attrs`): by default the one that takes writes, the
    /// primary of a primary and its standbys. After a failover among them, a lost connection
    /// connects again the same way at its next call, to the new primary. Other parameters as above.
    ///
    /// `readsFromStandbys` sends reads outside transactions to a standby among `hosts` (the primary
    /// when none answers), through connections of their own, as many as the pool's
    /// `maximumConnections` beside as many to the primary: such a read may miss the last writes
    /// the primary acknowledged, its own task's too, until the standby has replayed them (see
    /// `Database.readingFromPrimary`). Transactions, writes and catalog reads stay on the primary.
    /// - Throws: `CRUDSQLExeError` when `hosts` is empty, or when no server of the kind asked for
    ///   answers (`.connectionLost`), naming the servers tried; when `readsFromStandbys` goes with
    ///   `serverConnections` or `transactionPooling`.
    public convenience init(database: String, hosts: [PostgresHost], target: PostgresTargetSession = .readWrite, username: String? = nil,
                            password: String? = nil, connectTimeout: Int = 10, pool: PostgresPoolOptions = .init(),
                            readsFromStandbys: Bool = false, serverConnections: Int? = nil, transactionPooling: Bool = false) throws {
        guard !hosts.isEmpty else { throw CRUDSQLExeError("PostgresDatabaseConfiguration: no hosts given: name at least one server") }
        var parameters = ["dbname": database, "host": hosts.map(\.host).joined(separator: ","),
                          "connect_timeout": String(connectTimeout), "target_session_attrs": target.rawValue]
        if hosts.contains(where: { $0.port != nil }) { parameters["port"] = hosts.map { $0.port.map(String.init) ?? "" }.joined(separator: ",") }
        parameters["user"] = username
        parameters["password"] = password
        var standbys = parameters
        standbys["target_session_attrs"] = PostgresTargetSession.preferStandby.rawValue
        try self.init(parameters: parameters, pool: pool, serverConnections: serverConnections, transactionPooling: transactionPooling,
                      readParameters: readsFromStandbys ? standbys : nil)
    }

    /// Connects with a connection URL: `postgresql://user:password@host:port/database?options…`.
    /// Parameters the URL leaves out take libpq's defaults; a `connect_timeout` in the URL takes the
    /// place of `connectTimeout`. With several hosts (`postgresql://primary,standby/app`), libpq
    /// tries them in order, and `readsFromStandbys` sends reads outside transactions to a standby
    /// among them, as the initializer with `hosts` does. `serverConnections` and
    /// `transactionPooling` as above.
    /// - Throws: `CRUDSQLExeError`, as above; also for a malformed URL.
    public convenience init(url: String, connectTimeout: Int = 10, pool: PostgresPoolOptions = .init(), serverConnections: Int? = nil,
                            transactionPooling: Bool = false, readsFromStandbys: Bool = false) throws {
        var parameters = ["dbname": url]
        if !url.contains("connect_timeout=") { parameters["connect_timeout"] = String(connectTimeout) }
        var standbys = parameters
        standbys["target_session_attrs"] = PostgresTargetSession.preferStandby.rawValue
        try self.init(parameters: parameters, expandDatabase: true, pool: pool, serverConnections: serverConnections,
                      transactionPooling: transactionPooling, readParameters: readsFromStandbys ? standbys : nil)
    }

    /// Connects with any libpq connection keywords (`host`, `port`, `dbname`, `user`, `password`,
    /// `options`, `sslmode`, …); those left out take libpq's defaults. With the pool's
    /// `connectsOnFirstUse`, nothing connects until the first call. `serverConnections` and
    /// `transactionPooling` as above. `readParameters`: the libpq keywords of the servers that
    /// reads outside transactions go to, through connections of their own (as `readsFromStandbys`
    /// above); `nil` (the default): every call goes where `parameters` lead.
    /// - Throws: `CRUDSQLExeError`, as above.
    public init(parameters: [String: String], expandDatabase: Bool = false, pool: PostgresPoolOptions = .init(),
                serverConnections: Int? = nil, transactionPooling: Bool = false, readParameters: [String: String]? = nil) throws {
        if transactionPooling, serverConnections != nil {
            throw CRUDSQLExeError("PostgresDatabaseConfiguration: transactionPooling and serverConnections cannot go together: "
                + "a pooler in transaction mode already shares the server's connections; leave serverConnections nil")
        }
        if readParameters != nil, serverConnections != nil || transactionPooling {
            throw CRUDSQLExeError("PostgresDatabaseConfiguration: reads routed to standbys cannot go with serverConnections or "
                + "transactionPooling yet: leave those out, or route nothing")
        }
        var parameters = parameters
        if parameters["connect_timeout"] == nil { parameters["connect_timeout"] = "10" }
        let opened = parameters
        var reading = readParameters
        if reading != nil, reading?["connect_timeout"] == nil { reading?["connect_timeout"] = parameters["connect_timeout"] }
        let maximum = max(1, pool.maximumConnections)
        let layout = reading == nil ? CRUDPoolLayout.interchangeable(minimum: pool.minimumConnections, maximum: maximum)
            : .writerAndReaders(maxWriters: maximum, maxReaders: maximum, readersLag: true)
        let shared = serverConnections.map { PostgresServerConnections(limit: $0, parameters: opened, expandDatabase: expandDatabase,
                                                                                  timeout: pool.timeout) }
        let standbys = reading.map { PostgresHostRotation($0, expandDatabase: expandDatabase) }
        let open: @Sendable (CRUDConnectionRole) throws -> PostgresConnection = { role in
            if role == .reader, let standbys {
                return try PostgresConnection(parameters: standbys.nextParameters(), expandDatabase: expandDatabase, prefersStandby: true)
            }
            guard let shared else {
                return try PostgresConnection(parameters: opened, expandDatabase: expandDatabase, transactionPooling: transactionPooling)
            }
            return try PostgresConnection(sharing: shared)
        }
        if pool.connectsOnFirstUse {
            target = PostgresConnection.describe(parameters, expandDatabase: expandDatabase)
            executor = CRUDExecutor(layout: layout, dialect: PostgresDialect(transactionPooling: transactionPooling), timeout: pool.timeout, connectRetry: pool.connectRetry,
                                    describe: "PostgreSQL \(target)", peer: PostgresConnection.peer(parameters, expandDatabase: expandDatabase),
                                    statementTimeout: pool.statementTimeout, executesWithoutBlocking: true, open: open)
            return
        }
        let first = try CRUDReconnection.open(trying: pool.connectRetry) { try open(.general) }
        target = first.target
        executor = try CRUDExecutor(layout: layout, first: first, timeout: pool.timeout, connectRetry: pool.connectRetry,
                                    describe: "PostgreSQL \(first.target)", peer: first.peer, statementTimeout: pool.statementTimeout,
                                    open: open)
    }
}

/// The size of a PostgreSQL connection pool and how long a caller waits for a free connection.
public typealias PostgresPoolOptions = CRUDPoolOptions

/// One of the servers a configuration may connect to.
public struct PostgresHost: Sendable, Hashable {
    /// The server's host name or address, or a directory for a Unix socket.
    public var host: String
    /// The server's port; libpq's default (5432) when `nil`.
    public var port: Int?

    /// The server at `host`, on `port`.
    public init(_ host: String, port: Int? = nil) {
        self.host = host
        self.port = port
    }
}

/// Which of several servers a connection takes (libpq's `target_session_attrs`); servers that are
/// not of the kind are skipped, as if they did not answer.
public enum PostgresTargetSession: String, Sendable, CaseIterable {
    /// The first that answers.
    case any
    /// One whose sessions take writes by default: a primary, not a standby or a server set to read only.
    case readWrite = "read-write"
    /// One whose sessions only read by default.
    case readOnly = "read-only"
    /// One not in hot standby.
    case primary
    /// One in hot standby.
    case standby
    /// A standby where one answers, else any.
    case preferStandby = "prefer-standby"
}

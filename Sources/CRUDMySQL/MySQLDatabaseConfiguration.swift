#if MySQL
@_spi(CRUDDriver) import CRUD
import Foundation

/// Connects to a MySQL or MariaDB server, as Perfect-CRUD's README shows:
/// `Database(configuration: try MySQLDatabaseConfiguration(database: "app", host: "localhost",
/// username: "user", password: "pw"))`, or by URL, or by socket path.
///
/// Connections come from a pool, as PostgreSQL's do; one broken by a server restart is replaced.
/// A server that is down when the program starts: set the pool's `connectsOnFirstUse` (and a
/// `connectRetry` window). Such a configuration writes the SQL that MariaDB and MySQL of every
/// version both take, since it cannot ask the server which it is, which is MySQL's: no
/// `RETURNING` (`returning` throws `CRUDSQLGenError`, as on MySQL), and indexes created without
/// `IF NOT EXISTS`.
public final class MySQLDatabaseConfiguration: DatabaseConfigurationProtocol {
    @_spi(CRUDDriver) public let executor: CRUDExecutor<MySQLConnection>
    /// What the first connection reached: `database "app" at host:port`; with the pool's
    /// `connectsOnFirstUse`, what the options name.
    public let target: String

    /// Connects over TCP (or, with `host` "localhost" and no port, the server's default socket).
    /// - Parameters:
    ///   - database: the database (schema) to use.
    ///   - host: the server's host name or address; "localhost" without a port means the socket.
    ///   - port: the server's TCP port; 3306 when `nil`.
    ///   - username: the account to connect as; the current user's name when `nil`.
    ///   - password: the account's password, when it has one.
    ///   - connectTimeout: seconds to wait for the server before giving up.
    ///   - pool: how many connections to keep and how long a caller waits for a free one.
    /// - Throws: `CRUDSQLExeError` naming the server and saying what failed (refused, unknown host,
    ///   wrong password, missing database, timeout), with MySQL's error number as `code`, after the
    ///   pool's `connectRetry` window where one is given; nothing with the pool's
    ///   `connectsOnFirstUse`, which connects on the first call.
    public convenience init(database: String, host: String, port: Int? = nil, username: String? = nil,
                            password: String? = nil, connectTimeout: Int = 10, pool: MySQLPoolOptions = .init()) throws {
        try self.init(options: MySQLConnectOptions(servers: [MySQLHost(host, port: port)], socket: nil, username: username, password: password,
                                                   database: database, connectTimeout: connectTimeout), pool: pool)
    }

    /// Connects to the first of several servers that answers and is ready, trying them in order at
    /// every connect: the nodes of a MariaDB Galera cluster, say, each of which takes writes. A
    /// server that is down, unreachable, or (Galera) not part of the cluster's primary component is
    /// passed over; a connection whose server fails or leaves the cluster fails its call with
    /// `.connectionLost` and reconnects, to the next that answers, at its next call. Other
    /// parameters as above.
    /// - Throws: `CRUDSQLExeError` when `hosts` is empty; as above when no server answers, with the
    ///   last one's error.
    public convenience init(database: String, hosts: [MySQLHost], username: String? = nil, password: String? = nil,
                            connectTimeout: Int = 10, pool: MySQLPoolOptions = .init()) throws {
        guard !hosts.isEmpty else { throw CRUDSQLExeError("MySQLDatabaseConfiguration: no hosts given: name at least one server") }
        try self.init(options: MySQLConnectOptions(servers: hosts, socket: nil, username: username, password: password,
                                                   database: database, connectTimeout: connectTimeout), pool: pool)
    }

    /// Connects through the server's Unix socket.
    /// - Throws: `CRUDSQLExeError`, as above.
    public convenience init(database: String, socket: String, username: String? = nil, password: String? = nil,
                            connectTimeout: Int = 10, pool: MySQLPoolOptions = .init()) throws {
        try self.init(options: MySQLConnectOptions(servers: [MySQLHost("localhost")], socket: socket, username: username, password: password,
                                                   database: database, connectTimeout: connectTimeout), pool: pool)
    }

    /// Connects with a URL: `mysql://user:password@host:port/database`, with several servers to
    /// try in order (a Galera cluster's nodes, as the initializer with `hosts`):
    /// `mysql://user@node1:3306,node2:3306/database`, or with the socket as a query item:
    /// `mysql://user@localhost/database?socket=/run/mysqld/mysqld.sock`.
    /// - Throws: `CRUDSQLGenError` for a URL that is not of this form; `CRUDSQLExeError`, as above.
    public convenience init(url: String, connectTimeout: Int = 10, pool: MySQLPoolOptions = .init()) throws {
        // URLComponents takes one host: the others are read from the authority first.
        var hosts: [MySQLHost] = []
        var single = url
        if let start = url.range(of: "://")?.upperBound {
            let authority = url[start...].prefix { $0 != "/" && $0 != "?" }
            let hostList = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
            if hostList.contains(",") {
                for item in hostList.split(separator: ",") {
                    let parts = item.split(separator: ":", maxSplits: 1)
                    guard let name = parts.first, !name.isEmpty, parts.count == 1 || Int(parts[1]) != nil else {
                        throw CRUDSQLGenError("the MySQL URL's host list has '\(item)', which is not host or host:port: \(MySQLConnectOptions.redacted(url))")
                    }
                    hosts.append(MySQLHost(String(name), port: parts.count == 2 ? Int(parts[1]) : nil))
                }
                single = url.replacingCharacters(in: hostList.startIndex ..< hostList.endIndex, with: "placeholder")
            }
        }
        guard let components = URLComponents(string: single), ["mysql", "mariadb"].contains(components.scheme ?? ""),
              let host = components.host, !host.isEmpty else {
            throw CRUDSQLGenError("not a MySQL URL (mysql://user:password@host:port/database): \(MySQLConnectOptions.redacted(url))")
        }
        if hosts.isEmpty { hosts = [MySQLHost(host, port: components.port)] }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw CRUDSQLGenError("the MySQL URL names no database: \(MySQLConnectOptions.redacted(url))") }
        let socket = components.queryItems?.first { $0.name == "socket" }?.value
        if let unknown = components.queryItems?.first(where: { $0.name != "socket" }) {
            throw CRUDSQLGenError("the MySQL URL's query has \(unknown.name), which is none of its options "
                + "(socket, connectTimeout, and the pool's: \(CRUDURLOptions.poolNames.sorted().joined(separator: ", ")))")
        }
        try self.init(options: MySQLConnectOptions(servers: hosts, socket: socket, username: components.user,
                                                   password: components.password, database: database, connectTimeout: connectTimeout),
                      pool: pool)
    }

    init(options: MySQLConnectOptions, pool: MySQLPoolOptions) throws {
        let layout = CRUDPoolLayout.interchangeable(minimum: pool.minimumConnections, maximum: max(1, pool.maximumConnections))
        let peer = CRUDPeer(namespace: options.database, address: options.socket ?? options.servers[0].host,
                            port: options.socket == nil ? options.servers[0].port ?? 3306 : nil)
        if pool.connectsOnFirstUse {
            // Which server answers (MariaDB or MySQL, and its version) is known only once one does:
            // until then, and after, the SQL is what both take.
            target = options.description
            executor = CRUDExecutor(layout: layout, dialect: MySQLDialect.portable, timeout: pool.timeout, connectRetry: pool.connectRetry,
                                    describe: "MySQL \(target)", peer: peer, statementTimeout: pool.statementTimeout,
                                    executesWithoutBlocking: true) { _ in
                try MySQLConnection(options: options, dialect: .portable)
            }
            return
        }
        let first = try CRUDReconnection.open(trying: pool.connectRetry) { try MySQLConnection(options: options) }
        target = first.target
        executor = try CRUDExecutor(layout: layout, first: first, timeout: pool.timeout, connectRetry: pool.connectRetry,
                                    describe: "MySQL \(first.target)", peer: peer, statementTimeout: pool.statementTimeout) { _ in
            try MySQLConnection(options: options)
        }
    }
}

/// The size of a MySQL connection pool and how long a caller waits for a free connection.
public typealias MySQLPoolOptions = CRUDPoolOptions

/// One of the servers a configuration may connect to.
public struct MySQLHost: Sendable, Hashable {
    /// The server's host name or address ("localhost" without a port: its default socket).
    public var host: String
    /// The server's TCP port; 3306 when `nil`.
    public var port: Int?

    /// The server at `host`, on `port`.
    public init(_ host: String, port: Int? = nil) {
        self.host = host
        self.port = port
    }

    var description: String { "\(host):\(port.map(String.init) ?? "3306")" }
}

/// Where and how a connection connects.
struct MySQLConnectOptions: Sendable, CustomStringConvertible {
    /// Tried in order; never empty.
    let servers: [MySQLHost]
    let socket: String?
    let username: String?
    let password: String?
    let database: String
    let connectTimeout: Int

    var description: String {
        "database \"\(database)\" at " + (socket.map { "socket \($0)" } ?? servers.map(\.description).joined(separator: ", "))
    }

    /// A URL with its password hidden.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
#endif

#if MySQL
import CRUD
import CRUDMySQL
import Foundation

/// The MySQL server the tests use: the one MySQL's client variables name (`MYSQL_HOST`,
/// `MYSQL_TCP_PORT`, `MYSQL_UNIX_PORT`, `MYSQL_USER`, `MYSQL_PWD`; the user must be allowed to
/// create databases), or else a throwaway MariaDB started in a temporary folder on a free port and
/// stopped when the test process exits. A missing server is a test failure that says how to get one.
final class MariaDBTestServer: @unchecked Sendable {
    static let isSkipped = ProcessInfo.processInfo.environment["CRUD_SKIP_MYSQL"] == "1"
    static let shared: Result<MariaDBTestServer, any Error> = Result { try uninstrumented { try MariaDBTestServer() } }
    static let user = MariaDBServer.user
    static let password = MariaDBServer.password

    let host: String
    let port: Int?
    let socket: String?
    let username: String?
    let userPassword: String?
    let server: MariaDBServer?
    /// Guards `admin`.
    private let lock = NSLock()
    private var admin: Database<MySQLDatabaseConfiguration>?

    private init() throws {
        let environment = ProcessInfo.processInfo.environment
        if ["MYSQL_HOST", "MYSQL_TCP_PORT", "MYSQL_UNIX_PORT"].contains(where: { environment[$0] != nil }) {
            host = environment["MYSQL_HOST"] ?? "localhost"
            port = environment["MYSQL_TCP_PORT"].flatMap(Int.init)
            socket = environment["MYSQL_UNIX_PORT"]
            username = environment["MYSQL_USER"] ?? environment["USER"]
            userPassword = environment["MYSQL_PWD"]
            server = nil
        } else {
            let server = try MariaDBServer.start()
            self.server = server
            host = "127.0.0.1"
            port = server.port
            socket = nil
            username = Self.user
            userPassword = Self.password
        }
    }

    /// A configuration of a new, empty database on the server.
    func freshConfiguration(pool: MySQLPoolOptions = .init()) throws -> MySQLDatabaseConfiguration {
        try configuration(database: try freshDatabase(), pool: pool)
    }

    /// Creates a new, empty database on the server, and returns its name.
    func freshDatabase() throws -> String {
        let name = "crud_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try lock.withLock {
            // With no instruments, whatever the calling test has (`uninstrumented`).
            if admin == nil { admin = Database(configuration: try uninstrumented { try configuration(database: "mysql", pool: .init()) }) }
            try admin!.sql("CREATE DATABASE \(admin!.quote(name))")
        }
        return name
    }

    /// The `key=value` arguments with which `crud-test-probe` reaches `database`.
    func probeArguments(database: String) -> [String] {
        ["database=\(database)", "host=\(host)"] + [port.map { "port=\($0)" }, socket.map { "socket=\($0)" },
                                                    username.map { "user=\($0)" }, userPassword.map { "password=\($0)" }].compactMap { $0 }
    }

    func configuration(database: String, pool: MySQLPoolOptions) throws -> MySQLDatabaseConfiguration {
        if let socket {
            return try MySQLDatabaseConfiguration(database: database, socket: socket, username: username, password: userPassword, pool: pool)
        }
        return try MySQLDatabaseConfiguration(database: database, host: host, port: port, username: username, password: userPassword, pool: pool)
    }
}
#endif

@_spi(CRUDDriver) import CRUD
import CRUDPostgres
import Foundation

/// The PostgreSQL server the tests use: the one libpq's environment names (`PGHOST`, `PGPORT`,
/// `PGUSER`, `PGDATABASE`, `PGPASSWORD`), or else a throwaway cluster started in a temporary folder
/// on a free port and stopped when the test process exits. `CRUD_SKIP_POSTGRES=1` leaves PostgreSQL
/// out of the tests; without it, a missing server is a test failure that says how to get one.
final class PostgresTestServer: @unchecked Sendable {
    static let isSkipped = ProcessInfo.processInfo.environment["CRUD_SKIP_POSTGRES"] == "1"
    static let shared: Result<PostgresTestServer, any Error> = Result { try PostgresTestServer() }

    /// libpq keywords for the server (empty: libpq takes everything from the environment).
    let parameters: [String: String]
    let cluster: PostgresCluster?
    private let lock = NSLock()
    private var admin: PostgresDatabaseConfiguration?

    private init() throws {
        let environment = ProcessInfo.processInfo.environment
        if ["PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD"].contains(where: { environment[$0] != nil }) {
            parameters = [:]
            cluster = nil
        } else {
            let cluster = try PostgresCluster.start()
            self.cluster = cluster
            parameters = ["host": "127.0.0.1", "port": String(cluster.port), "user": "postgres",
                          "password": PostgresCluster.password, "dbname": "postgres"]
        }
    }

    /// Creates a database on the server.
    func createDatabase(_ name: String) throws {
        try lock.withLock {
            if admin == nil { admin = try PostgresDatabaseConfiguration(parameters: self.parameters) }
            try Database(configuration: admin!).withConnection { try $0.execute("CREATE DATABASE \"\(name)\"") }
        }
    }

    /// A connection whose `search_path` is a new, empty schema of its own, and whose
    /// `application_name` is that schema's name.
    func freshConfiguration(pool: PostgresPoolOptions = .init()) throws -> PostgresDatabaseConfiguration {
        try PostgresDatabaseConfiguration(parameters: try freshParameters(), pool: pool, serverConnections: Self.serverConnections)
    }

    /// `CRUD_TEST_POSTGRES_SERVER_CONNECTIONS=n` runs the shared suite with the pool's sessions
    /// sharing at most `n` server connections (`serverConnections`).
    static let serverConnections = ProcessInfo.processInfo.environment["CRUD_TEST_POSTGRES_SERVER_CONNECTIONS"].flatMap { Int($0) }

    /// The libpq keywords of `freshConfiguration`, for a child process to reach the same schema.
    func freshParameters() throws -> [String: String] {
        let schema = "crud_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try lock.withLock {
            if admin == nil { admin = try PostgresDatabaseConfiguration(parameters: self.parameters) }
            do {
                try Database(configuration: admin!).withConnection { try $0.execute("CREATE SCHEMA \"\(schema)\"") }
            } catch {
                admin = try PostgresDatabaseConfiguration(parameters: self.parameters)
                try Database(configuration: admin!).withConnection { try $0.execute("CREATE SCHEMA \"\(schema)\"") }
            }
        }
        var parameters = parameters
        parameters["options"] = "-c search_path=\(schema)"
        // Tells this configuration's connections apart in pg_stat_activity.
        parameters["application_name"] = schema
        return parameters
    }
}

extension PostgresCluster {
    /// A database on this cluster's `postgres` database, for tests that start a cluster of their own
    /// (to restart it without disturbing the others).
    func database() throws -> Database<PostgresDatabaseConfiguration> {
        Database(configuration: try PostgresDatabaseConfiguration(
            database: "postgres", host: "127.0.0.1", port: port, username: "postgres", password: PostgresCluster.password))
    }
}

@_spi(CRUDDriver) import CRUD
import CRUDPostgres
import Foundation

/// The PostgreSQL server the tests use: the one libpq's environment names (`PGHOST`, `PGPORT`,
/// `PGUSER`, `PGDATABASE`, `PGPASSWORD`), or else a throwaway cluster started in a temporary folder
/// on a free port and stopped when the test process exits. `CRUD_SKIP_POSTGRES=1` leaves PostgreSQL
/// out of the tests; without it, a missing server is a test failure that says how to get one.
/// `CRUD_TEST_POSTGRES_POOLER=1` puts pgbouncer in transaction mode in front of the throwaway
/// cluster, and the tests' configurations reach it through pgbouncer (`transactionPooling`).
///
/// `@unchecked Sendable`: `admin` is guarded by `lock`.
final class PostgresTestServer: @unchecked Sendable {
    static let isSkipped = ProcessInfo.processInfo.environment["CRUD_SKIP_POSTGRES"] == "1"
    static let shared: Result<PostgresTestServer, any Error> = Result { try uninstrumented { try PostgresTestServer() } }

    /// libpq keywords for the server (empty: libpq takes everything from the environment).
    let parameters: [String: String]
    let cluster: PostgresCluster?
    /// pgbouncer in front of `cluster`, under `CRUD_TEST_POSTGRES_POOLER=1`.
    let pooler: PgBouncer?
    private let lock = NSLock()
    private var admin: PostgresDatabaseConfiguration?

    private init() throws {
        let environment = ProcessInfo.processInfo.environment
        if ["PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD"].contains(where: { environment[$0] != nil }) {
            guard !Self.throughPooler else {
                throw PostgresUnavailable(description: "CRUD_TEST_POSTGRES_POOLER=1 starts pgbouncer in front of a throwaway cluster: "
                    + "unset libpq's PG* variables for that run")
            }
            parameters = [:]
            cluster = nil
            pooler = nil
        } else {
            let cluster = try PostgresCluster.start()
            self.cluster = cluster
            parameters = ["host": "127.0.0.1", "port": String(cluster.port), "user": "postgres",
                          "password": PostgresCluster.password, "dbname": "postgres"]
            pooler = Self.throughPooler ? try PgBouncer.start(in: cluster) : nil
        }
    }

    /// `CRUD_TEST_POSTGRES_POOLER=1`: the tests reach PostgreSQL through pgbouncer in transaction mode.
    static let throughPooler = ProcessInfo.processInfo.environment["CRUD_TEST_POSTGRES_POOLER"] == "1"

    /// Creates a database on the server.
    func createDatabase(_ name: String) throws {
        try lock.withLock {
            try administration().withConnection { try $0.execute("CREATE DATABASE \"\(name)\"") }
        }
    }

    /// The server's own connection, which creates the tests' databases and schemas; made anew when
    /// `fresh`. Made with no instruments (`uninstrumented`), whatever the calling test has. Called
    /// under `lock`.
    private func administration(fresh: Bool = false) throws -> Database<PostgresDatabaseConfiguration> {
        if admin == nil || fresh { admin = try uninstrumented { try PostgresDatabaseConfiguration(parameters: parameters) } }
        return Database(configuration: admin!)
    }

    /// A connection whose `search_path` is a new, empty schema of its own, and whose
    /// `application_name` is that schema's name.
    func freshConfiguration(pool: PostgresPoolOptions = .init()) throws -> PostgresDatabaseConfiguration {
        try Self.configuration(try freshParameters(), pool: pool)
    }

    /// A configuration for `parameters` in the mode this test run asks for: through a transaction
    /// pooler, or with sessions sharing server connections unless `sharing` is false.
    static func configuration(_ parameters: [String: String], pool: PostgresPoolOptions = .init(), sharing: Bool = true) throws
        -> PostgresDatabaseConfiguration {
        try PostgresDatabaseConfiguration(parameters: parameters, pool: pool, serverConnections: sharing ? serverConnections : nil,
                                          transactionPooling: throughPooler)
    }

    /// The arguments with which `crud-test-probe` reaches the database `parameters` name, in this
    /// run's mode.
    static func probeArguments(_ parameters: [String: String]) -> [String] {
        ["postgres"] + parameters.map { "\($0.key)=\($0.value)" } + (throughPooler ? ["crud_transaction_pooling=1"] : [])
    }

    /// `CRUD_TEST_POSTGRES_SERVER_CONNECTIONS=n` runs the shared suite with the pool's sessions
    /// sharing at most `n` server connections (`serverConnections`).
    static let serverConnections = ProcessInfo.processInfo.environment["CRUD_TEST_POSTGRES_SERVER_CONNECTIONS"].flatMap { Int($0) }

    /// The libpq keywords of `freshConfiguration`, for a child process to reach the same schema.
    /// Through the pooler, which takes no `options`, a new database rather than a schema.
    func freshParameters() throws -> [String: String] {
        if let pooler { return try freshDatabaseParameters(through: pooler) }
        let schema = "crud_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try lock.withLock {
            do {
                try administration().withConnection { try $0.execute("CREATE SCHEMA \"\(schema)\"") }
            } catch {
                try administration(fresh: true).withConnection { try $0.execute("CREATE SCHEMA \"\(schema)\"") }
            }
        }
        var parameters = parameters
        parameters["options"] = "-c search_path=\(schema)"
        // Tells this configuration's connections apart in pg_stat_activity.
        parameters["application_name"] = schema
        return parameters
    }

    /// How many client connections to database `name` pgbouncer lists (its admin console's
    /// `SHOW CLIENTS`, read with psql).
    func poolerClients(of name: String) throws -> Int {
        guard let pooler, let cluster else { return 0 }
        let listed = try Spawn.run([cluster.binaries.appending(path: "psql").path, "-h", "127.0.0.1", "-p", String(pooler.port), "-U", "postgres",
                                    "-d", "pgbouncer", "-tA", "-c", "SHOW CLIENTS"])
        // Columns: type, user, database, …; the console's own connection is to "pgbouncer".
        return listed.split(separator: "\n").filter { $0.split(separator: "|", omittingEmptySubsequences: false).dropFirst(2).first == Substring(name) }.count
    }

    private func freshDatabaseParameters(through pooler: PgBouncer) throws -> [String: String] {
        let database = "crud_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try createDatabase(database)
        var parameters = parameters
        parameters["port"] = String(pooler.port)
        parameters["dbname"] = database
        parameters["application_name"] = database
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

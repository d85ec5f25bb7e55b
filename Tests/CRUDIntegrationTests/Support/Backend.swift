import Testing
import CRUD
#if MySQL
import CRUDMySQL
#endif
import CRUDPostgres
import CRUDSQLite
import Foundation

/// A database the shared integration tests run against. Each test gets a fresh, empty database.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres
    case mysql

    var testDescription: String { rawValue }

    /// The name the backend's errors use.
    var databaseName: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        case .mysql: "MariaDB"
        }
    }

    /// Every backend; the shared tests take it as their argument list. `CRUD_SKIP_POSTGRES=1`
    /// leaves PostgreSQL out, `CRUD_SKIP_MYSQL=1` MySQL.
    static let all = allCases.filter { backend in
        switch backend {
        case .sqlite: true
        case .postgres: !PostgresTestServer.isSkipped
        case .mysql: !mysqlSkipped
        }
    }

    /// Whether the MySQL tests are left out: `CRUD_SKIP_MYSQL=1`, or a build without the package's
    /// MySQL trait (`swift test --traits MySQL` builds the driver and runs them).
    #if MySQL
    static let mysqlSkipped = MariaDBTestServer.isSkipped
    #else
    static let mysqlSkipped = true
    #endif

    /// What asking for a MySQL database throws in a build without the MySQL trait.
    static let withoutMySQL = TestBuildError(description: "built without CRUD's MySQL trait: run swift test --traits MySQL")

    /// Whether `configuration` opens MySQL or MariaDB, behind `AnyDatabaseConfiguration` too.
    static func isMySQL(_ configuration: some DatabaseConfigurationProtocol) -> Bool {
        if let erased = configuration as? AnyDatabaseConfiguration { return ["MySQL", "MariaDB"].contains(erased.databaseSystem) }
        #if MySQL
        return configuration is MySQLDatabaseConfiguration
        #else
        return false
        #endif
    }

    /// Whether `configuration` opens SQLite, behind `AnyDatabaseConfiguration` too.
    static func isSQLite(_ configuration: some DatabaseConfigurationProtocol) -> Bool {
        (configuration as? AnyDatabaseConfiguration)?.databaseSystem == "SQLite" || configuration is SQLiteDatabaseConfiguration
    }

    /// Whether `configuration` opens PostgreSQL, behind `AnyDatabaseConfiguration` too.
    static func isPostgres(_ configuration: some DatabaseConfigurationProtocol) -> Bool {
        (configuration as? AnyDatabaseConfiguration)?.databaseSystem == "PostgreSQL" || configuration is PostgresDatabaseConfiguration
    }

    /// Whether `open()` gives each database behind `AnyDatabaseConfiguration`:
    /// `CRUD_TEST_ANY_DATABASE=1` runs the shared suite over `AnyDatabase`.
    static let erased = ProcessInfo.processInfo.environment["CRUD_TEST_ANY_DATABASE"] == "1"

    /// A new empty database (with `erased`, behind `AnyDatabaseConfiguration`).
    func open() throws -> any DatabaseConfigurationProtocol {
        let configuration = try openDriver()
        return Self.erased ? try AnyDatabaseConfiguration(configuration) : configuration
    }

    /// A new empty database of the backend's own configuration type.
    func openDriver() throws -> any DatabaseConfigurationProtocol {
        Self.quietLogs
        switch self {
        case .sqlite:
            // The shared suites test what happens, not how fast: under ThreadSanitizer, with every
            // suite running at once on two cores, seven writes queued for SQLite's one writer can
            // take longer than the default 5 s.
            return try Self.sqliteConfiguration(busyTimeout: .seconds(30))
        case .postgres:
            return try PostgresTestServer.shared.get().freshConfiguration()
        case .mysql:
            #if MySQL
            return try MariaDBTestServer.shared.get().freshConfiguration()
            #else
            throw Self.withoutMySQL
            #endif
        }
    }

    /// A new empty database, and the arguments with which `crud-test-probe` reaches it (the backend's
    /// name, then `key=value` pairs).
    func openForProbe() throws -> (configuration: any DatabaseConfigurationProtocol, arguments: [String]) {
        Self.quietLogs
        switch self {
        case .sqlite:
            let path = Backend.temporaryFile("sqlite")
            return (try Self.sqliteConfiguration(at: path, busyTimeout: .seconds(30)), ["sqlite", "path=\(path)"])
        case .postgres:
            let parameters = try PostgresTestServer.shared.get().freshParameters()
            return (try PostgresTestServer.configuration(parameters, sharing: false), PostgresTestServer.probeArguments(parameters))
        case .mysql:
            #if MySQL
            let server = try MariaDBTestServer.shared.get()
            let database = try server.freshDatabase()
            return (try server.configuration(database: database, pool: .init()), ["mysql"] + server.probeArguments(database: database))
            #else
            throw Self.withoutMySQL
            #endif
        }
    }

    /// The SQLite database at `path` (by default a new empty one) whose callers wait up to
    /// `busyTimeout`.
    static func sqliteConfiguration(at path: String = Backend.temporaryFile("sqlite"), busyTimeout: Duration, maxReaders: Int = 4) throws
        -> SQLiteDatabaseConfiguration {
        quietLogs
        return try SQLiteDatabaseConfiguration(path, busyTimeout: busyTimeout, maxReaders: maxReaders)
    }

    /// A new empty database whose pool has `connections` connections (on SQLite: its writer, and
    /// that many readers) and whose callers wait at most `timeout` for one.
    func open(connections: Int, timeout: Duration) throws -> any DatabaseConfigurationProtocol {
        Self.quietLogs
        switch self {
        case .sqlite:
            return try Self.sqliteConfiguration(busyTimeout: timeout, maxReaders: connections)
        case .postgres:
            return try PostgresTestServer.shared.get().freshConfiguration(pool: PostgresPoolOptions(maximumConnections: connections, timeout: timeout))
        case .mysql:
            #if MySQL
            return try MariaDBTestServer.shared.get().freshConfiguration(pool: MySQLPoolOptions(maximumConnections: connections, timeout: timeout))
            #else
            throw Self.withoutMySQL
            #endif
        }
    }

    /// Query logs would drown the test output; tests that look at logging set their own.
    private static let quietLogs: Void = {
        CRUDLogging.queryLogDestinations = []
        CRUDLogging.errorLogDestinations = []
    }()

    /// The test databases' folder, removed when the test process ends.
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory.appending(path: "crud-integration-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = TestResourceReaper.shared.register(cleanUp: "rm -rf \(shellQuoted(directory.path))")
        return directory
    }()

    static func temporaryFile(_ suffix: String) -> String {
        directory.appending(path: "\(UUID().uuidString).\(suffix)").path
    }
}


extension Backend {
    /// Whether `Insert.lastInsertId()` works only in the transaction that inserted: PostgreSQL
    /// behind a transaction pooler (`CRUD_TEST_POSTGRES_POOLER=1`), which refuses it outside one.
    var insertIdsNeedTheTransaction: Bool { self == .postgres && PostgresTestServer.throughPooler }

    /// `lastInsertId` of the insert `body` makes, asked in the inserting transaction where the
    /// backend needs that; outside any transaction otherwise.
    func insertId<C: DatabaseConfigurationProtocol>(on db: Database<C>, _ body: () throws -> Int?) throws -> Int? {
        insertIdsNeedTheTransaction ? try db.transaction { try body() } : try body()
    }
}

/// The test build cannot do what a test asks.
struct TestBuildError: Error, CustomStringConvertible {
    var description: String
}

extension Backend {
    /// The URL of a new empty database, for `AnyDatabase(url:drivers:)`.
    func freshURL() throws -> String {
        switch self {
        case .sqlite:
            return "sqlite://" + Backend.temporaryFile("sqlite")
        case .postgres:
            var parameters = try PostgresTestServer.shared.get().freshParameters()
            let database = parameters.removeValue(forKey: "dbname") ?? ""
            let query = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.percentEncoded($0.value))" }.joined(separator: "&")
            return "postgresql:///\(Self.percentEncoded(database))?\(query)"
        case .mysql:
            #if MySQL
            let server = try MariaDBTestServer.shared.get()
            let database = try server.freshDatabase()
            let credentials = server.username.map { user in Self.percentEncoded(user) + (server.userPassword.map { ":" + Self.percentEncoded($0) } ?? "") + "@" } ?? ""
            let port = server.port.map { ":\($0)" } ?? ""
            let socket = server.socket.map { "?socket=" + Self.percentEncoded($0) } ?? ""
            return "mysql://\(credentials)\(server.host)\(port)/\(database)\(socket)"
            #else
            throw Self.withoutMySQL
            #endif
        }
    }

    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

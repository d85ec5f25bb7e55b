/// A database whose driver the program picks when it starts, from a URL or a driver's
/// configuration: one type for SQLite, PostgreSQL and MySQL, so that the code using it needs no
/// generic parameter. It has the whole chain and async API of any `Database`.
///
///     let db = try AnyDatabase(url: environment["DATABASE_URL"] ?? "sqlite:todos.db", drivers: [.sqlite, .postgres])
///     func openTodos(_ db: AnyDatabase) throws -> [Todo] { try db.table(Todo.self).select().map { $0 } }
///
/// Each call to the driver (a bind, a column read, a step) goes through one more indirection than
/// with the driver's own configuration type; `Benchmarks/README.md` has what that costs.
public typealias AnyDatabase = Database<AnyDatabaseConfiguration>

/// The configuration of an `AnyDatabase`: a driver's configuration with its type erased.
public final class AnyDatabaseConfiguration: DatabaseConfigurationProtocol {
    public typealias Connection = AnyCRUDConnection

    @_spi(CRUDDriver) public let executor: CRUDExecutor<AnyCRUDConnection>

    /// The database the driver opened: `SQLite`, `PostgreSQL`, `MySQL` or `MariaDB` (a MySQL
    /// configuration that connects on first use says `MySQL` for both).
    public var databaseSystem: String { executor.dialect.name }

    /// Takes over `configuration`'s connections, options and pool, each connection behind one type.
    /// `configuration` is shut afterwards: a `Database` made from it throws `CRUDSQLExeError` of
    /// kind `.shutDown`, which says to use this instead.
    /// - Throws: `CRUDSQLExeError` when a connection the pool needs at once cannot be opened.
    public init<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        executor = try CRUDExecutor(erasing: configuration.executor)
    }

    /// Opens the database `url` names with the driver of its scheme: `sqlite:todos.db`,
    /// `postgres://user@host/database`, `mysql://user@host/database` (each driver's documentation
    /// gives its forms).
    /// - Parameters:
    ///   - url: the database's URL, whose scheme picks the driver.
    ///   - drivers: the drivers the program may use, from the driver modules it imports: `.sqlite`
    ///     (CRUDSQLite), `.postgres` (CRUDPostgres), `.mysql` (CRUDMySQL), or the same with options,
    ///     as `.postgres(pool: PostgresPoolOptions(maximumConnections: 20))`.
    /// - Throws: `CRUDSQLGenError` when no driver takes the URL's scheme; what the driver's
    ///   configuration throws (a database it cannot open or reach). Messages never show the URL,
    ///   which may hold a password.
    public convenience init(url: String, drivers: [CRUDDriver]) throws {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex else {
            throw CRUDSQLGenError("a database URL starts with its scheme (sqlite:, postgres://, mysql://); this one has none")
        }
        let scheme = url[..<colon].lowercased()
        guard let driver = drivers.first(where: { $0.schemes.contains(scheme) }) else {
            let known = drivers.flatMap(\.schemes).map { "'\($0)'" }.joined(separator: ", ")
            throw CRUDSQLGenError("no driver given for the URL scheme '\(scheme)' (the drivers given take \(known.isEmpty ? "none" : known)): "
                + "import the driver's module and add it to drivers, as [.sqlite, .postgres, .mysql]")
        }
        try self.init(driver.open(url))
    }
}

/// A driver that `AnyDatabase(url:drivers:)` may open a database with, and the URL schemes it
/// takes. Each driver module declares its own (`CRUDDriver.sqlite` in CRUDSQLite, …).
public struct CRUDDriver: Sendable {
    /// The URL schemes the driver takes, in lowercase (`postgres`, `postgresql`).
    public let schemes: [String]
    let open: @Sendable (String) throws -> any DatabaseConfigurationProtocol

    /// For drivers: opens a configuration for a URL of one of `schemes`.
    @_spi(CRUDDriver) public init(schemes: [String], open: @escaping @Sendable (String) throws -> any DatabaseConfigurationProtocol) {
        self.schemes = schemes
        self.open = open
    }
}

extension Database where C == AnyDatabaseConfiguration {
    /// Opens the database `url` names with the driver of its scheme, as
    /// `AnyDatabaseConfiguration(url:drivers:)` does.
    /// - Throws: `CRUDSQLGenError` when no driver takes the URL's scheme; what the driver throws.
    public init(url: String, drivers: [CRUDDriver]) throws {
        self.init(configuration: try AnyDatabaseConfiguration(url: url, drivers: drivers))
    }

    /// The database behind a driver's configuration, as `AnyDatabaseConfiguration(_:)` makes it.
    /// - Throws: `CRUDSQLExeError` when a connection the pool needs at once cannot be opened.
    public init<Other: DatabaseConfigurationProtocol>(erasing configuration: Other) throws {
        self.init(configuration: try AnyDatabaseConfiguration(configuration))
    }
}

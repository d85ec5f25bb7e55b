/// A database, reached through a configuration that a driver provides:
/// `Database(configuration: try SQLiteDatabaseConfiguration(path))`.
public protocol DatabaseProtocol: Sendable {
    /// The driver's configuration type, which says which connections the database has.
    associatedtype Configuration: DatabaseConfigurationProtocol
    /// The configuration the database was made from.
    var configuration: Configuration { get }
    /// The engine that runs this database's operations on its connections: the chain's inlinable
    /// code reaches it through this requirement. Not for use outside CRUD.
    var _executor: CRUDExecutor<Configuration.Connection> { get }
}

/// The entry point of every operation chain: `db.table(T.self)…`, `db.create(T.self)`,
/// `db.transaction { … }`, `db.sql(…)`.
///
/// A `Database` is `Sendable`: make one per program and share it between threads and tasks. Behind
/// it is the configuration's pool of connections (on SQLite one writer and several readers; on a
/// server a bounded pool); each operation takes a connection for as long as it runs. Every terminal
/// operation has a synchronous form and an `async` one.
public struct Database<C: DatabaseConfigurationProtocol>: DatabaseProtocol {
    public typealias Configuration = C
    public let configuration: C
    @usableFromInline let executor: CRUDExecutor<C.Connection>
    /// The engine that runs this database's operations. Not for use outside CRUD.
    @inlinable public var _executor: CRUDExecutor<C.Connection> { executor }

    /// A database over the configuration's connections; databases made from one configuration share
    /// its pool.
    public init(configuration c: C) {
        configuration = c
        executor = c.executor
    }

    init(configuration: C, executor: CRUDExecutor<C.Connection>) {
        self.configuration = configuration
        self.executor = executor
    }

    /// The table of `form`, where the operation chains start.
    @inlinable
    public func table<T: CRUDModel>(_ form: T.Type) -> Table<T, Database<C>> {
        Table(database: self)
    }

    /// Runs `body` with a connection of this database, for calls the driver offers beyond the chain
    /// (`columnNames(ofTable:)`, say). Inside a transaction it is the transaction's connection. Do not
    /// keep the connection: it goes back to the pool when `body` returns.
    /// - Throws: what `body` throws; `CRUDSQLExeError` when no connection can be had.
    @_spi(CRUDDriver) public func withConnection<T>(_ body: (C.Connection) throws -> T) throws -> T {
        try executor.withConnection(body)
    }
}

/// A database, reached through a configuration that a driver provides:
/// `Database(configuration: try SQLiteDatabaseConfiguration(path))`.
public protocol DatabaseProtocol {
    associatedtype Configuration: DatabaseConfigurationProtocol
    var configuration: Configuration { get }
}

/// The entry point of every operation chain: `db.table(T.self)…`, `db.create(T.self)`,
/// `db.transaction { … }`, `db.sql(…)`.
public struct Database<C: DatabaseConfigurationProtocol>: DatabaseProtocol {
    public typealias Configuration = C
    public let configuration: C

    public init(configuration c: C) {
        configuration = c
    }

    var connection: C.Connection { configuration.connection }

    /// The table of `form`, where the operation chains start.
    public func table<T: CRUDModel>(_ form: T.Type) -> Table<T, Database<C>> {
        Table(database: self)
    }
}

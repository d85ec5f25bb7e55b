/// What runs a driver's catalog reads (a table's columns, its keys, a pragma): the library passes
/// the session it runs every statement on, so these go through the same funnel (the query log
/// shows them); a caller holding a connection (`withConnection`) runs them on the connection itself,
/// unseen by the library's log.
@_spi(CRUDDriver) public protocol CRUDCatalogRunner<Statement> {
    /// The driver's statement type.
    associatedtype Statement: CRUDStatement

    /// Runs `sql` with `parameters`, calling `row` with the statement standing on each result row.
    /// - Throws: `CRUDSQLExeError`; what `row` throws.
    func forEachRow(_ sql: String, _ parameters: [CRUDDatabaseValue], _ row: (Statement) throws -> Void) throws

    /// Runs `sql`, which takes no parameters and returns no rows.
    /// - Throws: `CRUDSQLExeError`.
    func execute(_ sql: String) throws
}

extension CRUDCatalogRunner {
    /// Whether `sql` returns at least one row.
    /// - Throws: `CRUDSQLExeError`.
    public func hasRow(_ sql: String, _ parameters: [CRUDDatabaseValue]) throws -> Bool {
        var found = false
        try forEachRow(sql, parameters) { _ in found = true }
        return found
    }
}

/// A connection running catalog reads itself, for a caller that holds it.
@_spi(CRUDDriver) public struct CRUDConnectionRunner<Connection: CRUDConnection>: CRUDCatalogRunner {
    let connection: Connection

    /// A runner over `connection`.
    public init(_ connection: Connection) {
        self.connection = connection
    }

    public func forEachRow(_ sql: String, _ parameters: [CRUDDatabaseValue], _ row: (Connection.Statement) throws -> Void) throws {
        let statement = try connection.prepare(sql)
        defer { connection.release(statement) }
        var binder = statement
        for (position, value) in parameters.enumerated() { try value.bind(to: &binder, at: position) }
        while try statement.step() { try row(statement) }
    }

    public func execute(_ sql: String) throws {
        try connection.execute(sql)
    }
}

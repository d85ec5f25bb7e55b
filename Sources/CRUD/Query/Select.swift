/// The results of a query, run anew each time they are iterated.
///
/// Iterate with errors thrown (recommended): `try select.forEach { … }`, `try select.map { … }`, or
/// `select.cursor()`. A plain `for … in select` cannot throw: if the database fails or a row does
/// not fit the model during such a loop, the program stops with the error, rather than the loop
/// ending early as if there were no more rows.
public struct Select<OverAllForm: CRUDModel, Parent: TableProtocol>: Sequence where Parent.OverAllForm == OverAllForm {
    public typealias Connection = Parent.DatabaseType.Configuration.Connection
    let database: Parent.DatabaseType
    let plan: CRUDQueryPlan

    /// Runs the query and returns a cursor over its results.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError` (from joined children).
    public func cursor() throws -> CRUDCursor<OverAllForm, Connection> {
        try CRUDCursor(connection: database.configuration.connection, plan: plan, limit: plan.limit)
    }

    /// Runs the query and transforms every result.
    /// - Throws: what the query throws, or what `transform` throws.
    @inlinable
    public func map<T>(_ transform: (OverAllForm) throws -> T) throws -> [T] {
        let cursor = try cursor()
        var results: [T] = []
        while let next = try cursor.next() { results.append(try transform(next)) }
        return results
    }

    /// Runs the query and calls `body` with every result.
    @inlinable
    public func forEach(_ body: (OverAllForm) throws -> Void) throws {
        let cursor = try cursor()
        while let next = try cursor.next() { try body(next) }
    }

    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(select: self)
    }

    /// Runs the query on the first `next()`; stops the program on an error (see `Select`).
    public struct Iterator: IteratorProtocol {
        @usableFromInline let select: Select
        @usableFromInline var cursor: CRUDCursor<OverAllForm, Connection>?

        @inlinable
        init(select: Select) {
            self.select = select
        }

        @inlinable
        public mutating func next() -> OverAllForm? {
            do {
                if cursor == nil { cursor = try select.cursor() }
                return try cursor?.next()
            } catch {
                Self.stop(error)
            }
        }

        @usableFromInline
        static func stop(_ error: any Error) -> Never {
            fatalError("CRUD: a query failed while a for-in loop, which cannot throw, iterated it: \(error). "
                + "Iterate with `try select.forEach`, `try select.map` or `select.cursor()` to handle errors.")
        }
    }
}

extension SelectAble {
    /// The query's results, run when iterated (and again at each iteration).
    /// - Throws: `CRUDSQLGenError` for a mistake in the chain.
    public func select() throws -> Select<OverAllForm, Self> {
        try plan.validate()
        return Select(database: database, plan: plan)
    }

    /// How many results `select()` would give, counted by the database without reading them.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`.
    public func count() throws -> Int {
        try plan.validate()
        var builder = SQLBuilder(dialect: connection.dialect)
        let sql = try logging { try builder.count(plan) }
        return try connection.withStatement(sql, builder.parameters) { statement in
            guard try statement.step() else { throw CRUDSQLExeError("COUNT returned no row", sql: sql) }
            return Int(try statement.readInt64(0))
        }
    }

    /// The first result (with its joined children), or `nil` when there is none.
    /// - Throws: `CRUDSQLGenError`, `CRUDSQLExeError`, `CRUDDecoderError`.
    @inlinable
    public func first() throws -> OverAllForm? {
        try firstCursor().next()
    }

    /// A cursor over at most the first result.
    @usableFromInline
    func firstCursor() throws -> CRUDCursor<OverAllForm, DatabaseType.Configuration.Connection> {
        let limit = CRUDQueryPlan.Limit(max: min(plan.limit?.max ?? 1, 1), skip: plan.limit?.skip ?? 0)
        return try CRUDCursor(connection: connection, plan: plan, limit: limit)
    }
}

/// One statement of a plan that reads, whose rows a reader turns into the result: a count, an
/// existence check, an aggregate, a grouped aggregate, the ping.
@usableFromInline
struct CRUDQueryOperation<Reader: CRUDStatementReader>: CRUDOperation {
    @usableFromInline typealias Connection = Reader.Connection

    /// The statement's plan, or the mistake found making it (thrown inside the runner's boundary).
    @usableFromInline let plan: Swift.Result<CRUDStatementPlan, any Error>
    @usableFromInline let reader: Reader

    /// The operation of `plan`'s statement, read by `reader`.
    @inlinable
    init(_ plan: () throws -> CRUDStatementPlan, reader: Reader) {
        self.plan = Swift.Result { try plan() }
        self.reader = reader
    }

    @inlinable var access: CRUDAccess { .read }

    @inlinable
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Reader.Value> {
        .statement(try executor.render(try plan.get()))
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Reader.Value? {
        try reader.read(statement)
    }
}

extension CRUDQueryOperation {
    /// How many rows `plan` selects, counted by the database.
    @inlinable
    static func count<C>(_ plan: CRUDQueryPlan) -> Self where Reader == CRUDClosureReader<C, Int> {
        Self({ .count(plan) }, reader: CRUDClosureReader(CRUDExecutor<C>.readCount))
    }

    /// Whether `plan` selects any row.
    @inlinable
    static func exists<C>(_ plan: CRUDQueryPlan) -> Self where Reader == CRUDClosureReader<C, Bool> {
        Self({ .exists(plan) }, reader: CRUDClosureReader { try $0.step() })
    }

    /// A statement that reads nothing, to see that the database answers.
    @inlinable
    static func ping<C>() -> Self where Reader == CRUDClosureReader<C, Void> {
        Self({ .ping }, reader: CRUDClosureReader { _ = try $0.step() })
    }
}

extension CRUDExecutor {
    /// The plan's SQL in this database's dialect.
    /// - Throws: `CRUDSQLGenError` for a mistake in the chain.
    @usableFromInline
    func render(_ plan: CRUDStatementPlan) throws -> CRUDStatementText {
        try SQLBuilder.render(plan, in: dialect)
    }

    /// The count a COUNT statement returns.
    /// - Throws: `CRUDSQLExeError`.
    @usableFromInline
    static func readCount(_ statement: Connection.Statement) throws -> Int {
        guard try statement.step() else { throw CRUDSQLExeError("COUNT returned no row") }
        return Int(try statement.readInt64(0))
    }
}

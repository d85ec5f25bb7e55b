/// Every row of a join-free query, read in one statement.
@usableFromInline
struct CRUDRowsOperation<Model: CRUDModel, Connection: CRUDConnection>: CRUDOperation {
    @usableFromInline let plan: CRUDQueryPlan
    @usableFromInline var rows: [Model]?

    @inlinable
    init(_ plan: CRUDQueryPlan) {
        self.plan = plan
    }

    @inlinable var access: CRUDAccess { .read }

    @inlinable
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep {
        guard rows == nil else { return .finished }
        let query = try executor.selectQuery(plan, inTransaction: session.transactionDepth > 0)
        return .statement(CRUDStatementText(query.sql, query.parameters))
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws {
        rows = try CRUDExecutor<Connection>.readAll(statement)
    }

    @inlinable var result: [Model] { rows! }
}

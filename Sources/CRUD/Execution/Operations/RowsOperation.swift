/// Every row of a join-free query, read in one statement.
@usableFromInline
struct CRUDRowsOperation<Model: CRUDModel, Connection: CRUDConnection>: CRUDOperation {
    @usableFromInline let plan: CRUDQueryPlan

    @inlinable
    init(_ plan: CRUDQueryPlan) {
        self.plan = plan
    }

    @inlinable var access: CRUDAccess { .read }

    @inlinable
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<[Model]> {
        .statement(try executor.selectQuery(plan, inTransaction: session.transactionDepth > 0))
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> [Model]? {
        try CRUDExecutor<Connection>.readAll(statement)
    }
}

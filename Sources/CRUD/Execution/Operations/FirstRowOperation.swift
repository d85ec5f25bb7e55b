/// The first row of a join-free query, read without a cursor: the session keeps the statement of
/// the query's shape at the select cache's slot, so it is found by index, bound, stepped once and
/// reset, with no SQL text hashed and nothing allocated for the read itself.
@usableFromInline
struct CRUDFirstRowOperation<Model: CRUDModel, Connection: CRUDConnection>: CRUDOperation {
    @usableFromInline let plan: CRUDQueryPlan
    /// Whether the statement is a kept one, which the operation binds every value of.
    @usableFromInline var bindsValues = false

    @inlinable
    init(_ plan: CRUDQueryPlan) {
        self.plan = plan
    }

    @inlinable var access: CRUDAccess { .read }

    @inlinable
    mutating func next(_ executor: CRUDExecutor<Connection>, on session: CRUDSession<Connection>) throws -> CRUDStep<Model?> {
        // The values go to the session's buffer, which keeps its storage between reads.
        let query = try executor.firstQuery(plan, inTransaction: session.transactionDepth > 0, values: &session.rowReadValues)
        guard let slot = query.slot else { return .statement(CRUDStatementText(query.sql, session.rowReadValues)) }
        bindsValues = true
        return .kept(slot)
    }

    @inlinable
    mutating func bind(_ binder: inout Connection.Statement, on session: CRUDSession<Connection>) throws {
        // A statement from the connection's cache was given them with its text.
        guard bindsValues else { return }
        try CRUDExecutor<Connection>.bind(session.rowReadValues, to: &binder)
    }

    @inlinable
    mutating func read(_ statement: Connection.Statement, on session: CRUDSession<Connection>) throws -> Model?? {
        .some(try CRUDExecutor<Connection>.readFirst(statement))
    }
}

/// A `where` step: the condition rows must meet.
public struct Where<OverAllForm: CRUDModel, Parent: TableProtocol>: TableProtocol, SelectAble where Parent.OverAllForm == OverAllForm {
    public typealias Form = OverAllForm
    /// The database the chain runs on.
    public let database: Parent.DatabaseType
    /// What the chain has said so far.
    public let _plan: CRUDQueryPlan

    @inlinable
    init(database: Parent.DatabaseType, plan: CRUDQueryPlan) {
        self.database = database
        _plan = plan
    }
}

extension Where: UpdateAble where Parent: PlainTable {}
extension Where: DeleteAble where Parent: PlainTable {}

extension WhereAble {
    /// Keeps the rows that meet `expr`. The expression may name the table and any joined type; a
    /// joined type's condition also filters that join's children.
    @inlinable
    public func `where`(_ expr: CRUDBooleanExpression) -> Where<OverAllForm, Self> {
        var plan = self.plan
        plan.filter = expr
        return Where(database: database, plan: plan)
    }
}

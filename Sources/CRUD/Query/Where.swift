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

    /// Keeps the rows that meet every one of `conditions`; with none, every row. For filters made
    /// from what a request gave, one query for every combination:
    ///
    ///     var conditions: [CRUDBooleanExpression] = []
    ///     if let done { conditions.append(\Todo.done == done) }
    ///     if let owner { conditions.append(\Todo.userId == owner) }
    ///     let todos = db.table(Todo.self).order(by: \.id).where(conditions)
    ///     let page = try await todos.page(2, size: 20)      // or select(), count(), first()
    ///
    /// With no condition, an update or delete of the result changes every row of the table.
    @inlinable
    public func `where`(_ conditions: [CRUDBooleanExpression]) -> Where<OverAllForm, Self> {
        var plan = self.plan
        plan.filter = conditions.dropFirst().reduce(conditions.first) { all, condition in all.map { $0 && condition } }
        return Where(database: database, plan: plan)
    }
}

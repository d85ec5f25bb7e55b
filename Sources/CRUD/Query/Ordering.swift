/// An `order` step: sorts the most recent table's or join's rows.
public struct Ordering<OverAllForm: CRUDModel, Parent: TableProtocol>: TableProtocol, JoinAble, WhereAble, OrderAble,
    LimitAble, SelectAble where Parent.OverAllForm == OverAllForm {
    public typealias Form = Parent.Form
    /// The database the chain runs on.
    public let database: Parent.DatabaseType
    /// What the chain has said so far.
    public let _plan: CRUDQueryPlan

    @usableFromInline
    init(database: Parent.DatabaseType, plan: CRUDQueryPlan) {
        self.database = database
        _plan = plan
    }
}

extension OrderAble {
    /// Sorts ascending by the columns, first key first; NULLs come first.
    /// A key path that names no column makes the query throw `CRUDSQLGenError` when it runs.
    public func order(by: PartialKeyPath<Form>...) -> Ordering<OverAllForm, Self> {
        var plan = self.plan
        plan.addOrder(by, descending: false)
        return Ordering(database: database, plan: plan)
    }

    /// Sorts descending by the columns, first key first; NULLs come last.
    public func order(descending by: PartialKeyPath<Form>...) -> Ordering<OverAllForm, Self> {
        var plan = self.plan
        plan.addOrder(by, descending: true)
        return Ordering(database: database, plan: plan)
    }

    /// Sorts ascending by the generated columns (`order(by: Person.Columns.lastName)`); NULLs first.
    public func order(by: any CRUDTableColumn<Form>...) -> Ordering<OverAllForm, Self> {
        var plan = self.plan
        plan.addOrder(columns: by.map(\.index), descending: false)
        return Ordering(database: database, plan: plan)
    }

    /// Sorts descending by the generated columns; NULLs last.
    public func order(descending by: any CRUDTableColumn<Form>...) -> Ordering<OverAllForm, Self> {
        var plan = self.plan
        plan.addOrder(columns: by.map(\.index), descending: true)
        return Ordering(database: database, plan: plan)
    }
}

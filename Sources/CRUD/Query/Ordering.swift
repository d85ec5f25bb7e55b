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

    /// Sorts the root rows (not the children) by the children of the join just before: ascending by
    /// each root row's smallest value of the column, so that the root row whose first child comes
    /// first comes first; `order(by:)` there would sort each root row's children instead. All its
    /// children count, whatever a `where` keeps; a root row without children (or with only NULLs)
    /// sorts as NULL does, first.
    ///
    ///     // Users whose earliest todo is due first, each with its todos by due date.
    ///     try db.table(User.self).join(\.todos, on: \.id, equals: \.userId).orderParents(by: \.dueAt).order(by: \.dueAt)
    ///
    /// Naming a model other than the join's makes the query throw `CRUDSQLGenError` when it runs.
    public func orderParents(by: PartialKeyPath<Form>...) -> Ordering<OverAllForm, Self> {
        var plan = self.plan
        plan.addParentOrder(by, descending: false)
        return Ordering(database: database, plan: plan)
    }

    /// Sorts the root rows descending by the children of the join just before: by each root row's
    /// largest value of the column, so that the root row whose latest child is latest comes first;
    /// a root row without children comes last.
    public func orderParents(descending by: PartialKeyPath<Form>...) -> Ordering<OverAllForm, Self> {
        var plan = self.plan
        plan.addParentOrder(by, descending: true)
        return Ordering(database: database, plan: plan)
    }

    /// Sorts descending by the generated columns; NULLs last.
    public func order(descending by: any CRUDTableColumn<Form>...) -> Ordering<OverAllForm, Self> {
        var plan = self.plan
        plan.addOrder(columns: by.map(\.index), descending: true)
        return Ordering(database: database, plan: plan)
    }
}

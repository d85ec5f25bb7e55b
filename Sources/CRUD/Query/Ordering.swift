/// An `order` step: sorts the most recent table's or join's rows.
public struct Ordering<OverAllForm: CRUDModel, Parent: TableProtocol>: TableProtocol, JoinAble, WhereAble, OrderAble,
    LimitAble, SelectAble where Parent.OverAllForm == OverAllForm {
    public typealias Form = Parent.Form
    public let database: Parent.DatabaseType
    public let plan: CRUDQueryPlan
}

/// A `limit` step: bounds and skips the most recent table's or join's rows. After a join it applies
/// to each parent's children separately.
public struct Limit<OverAllForm: CRUDModel, Parent: TableProtocol>: TableProtocol, JoinAble, WhereAble, OrderAble,
    SelectAble where Parent.OverAllForm == OverAllForm {
    public typealias Form = Parent.Form
    public let database: Parent.DatabaseType
    public let plan: CRUDQueryPlan
}

/// A `where` step: the condition rows must meet.
public struct Where<OverAllForm: CRUDModel, Parent: TableProtocol>: TableProtocol, SelectAble where Parent.OverAllForm == OverAllForm {
    public typealias Form = OverAllForm
    public let database: Parent.DatabaseType
    public let plan: CRUDQueryPlan
}

extension Where: UpdateAble where Parent: PlainTable {}
extension Where: DeleteAble where Parent: PlainTable {}

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

extension LimitAble {
    private func limited(max: Int?, skip: Int) -> Limit<OverAllForm, Self> {
        var plan = self.plan
        plan.setLimit(max: max, skip: skip)
        return Limit(database: database, plan: plan)
    }

    /// At most `max` rows after skipping `skip`. Negative numbers make the query throw.
    public func limit(_ max: Int, skip: Int = 0) -> Limit<OverAllForm, Self> {
        limited(max: max, skip: skip)
    }

    /// The rows at positions `range` (0-based): `limit(20..<30)`.
    public func limit(_ range: Range<Int>) -> Limit<OverAllForm, Self> {
        limited(max: range.count, skip: range.lowerBound)
    }

    /// `limit(20...29)`.
    public func limit(_ range: ClosedRange<Int>) -> Limit<OverAllForm, Self> {
        limited(max: range.count, skip: range.lowerBound)
    }

    /// Every row from position `range.lowerBound` on: `limit(20...)`.
    public func limit(_ range: PartialRangeFrom<Int>) -> Limit<OverAllForm, Self> {
        limited(max: nil, skip: range.lowerBound)
    }

    /// `limit(...9)`: the first ten rows.
    public func limit(_ range: PartialRangeThrough<Int>) -> Limit<OverAllForm, Self> {
        limited(max: range.upperBound == .max ? nil : range.upperBound + 1, skip: 0)
    }

    /// `limit(..<10)`: the first ten rows.
    public func limit(_ range: PartialRangeUpTo<Int>) -> Limit<OverAllForm, Self> {
        limited(max: range.upperBound, skip: 0)
    }
}

extension WhereAble {
    /// Keeps the rows that meet `expr`. The expression may name the table and any joined type; a
    /// joined type's condition also filters that join's children.
    public func `where`(_ expr: CRUDBooleanExpression) -> Where<OverAllForm, Self> {
        var plan = self.plan
        plan.filter = expr
        return Where(database: database, plan: plan)
    }
}

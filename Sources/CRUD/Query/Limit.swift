/// A `limit` step: bounds and skips the most recent table's or join's rows. After a join it applies
/// to each parent's children separately.
public struct Limit<OverAllForm: CRUDModel, Parent: TableProtocol>: TableProtocol, JoinAble, WhereAble, OrderAble,
    SelectAble where Parent.OverAllForm == OverAllForm {
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

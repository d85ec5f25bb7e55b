/// A parent-child (or self) join: `.join(\.phoneNumbers, on: \.id, equals: \.personId)`.
public struct Join<OverAllForm: CRUDModel, Parent: TableProtocol, NewType: CRUDModel, KeyType: CRUDValue>: TableProtocol,
    JoinAble, WhereAble, OrderAble, LimitAble, SelectAble where Parent.OverAllForm == OverAllForm {
    public typealias Form = NewType
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

/// A many-to-many join through a junction table:
/// `.join(\.classes, with: StudentClasses.self, on: \.id, equals: \.studentId, and: \.id, is: \.classId)`.
public struct JoinPivot<OverAllForm: CRUDModel, Parent: TableProtocol, NewType: CRUDModel, Pivot: CRUDModel,
    FirstKeyType: CRUDValue, SecondKeyType: CRUDValue>: TableProtocol, JoinAble, WhereAble, OrderAble, LimitAble, SelectAble
    where Parent.OverAllForm == OverAllForm {
    public typealias Form = NewType
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

extension JoinAble {
    private func column<Model: CRUDModel>(_ keyPath: PartialKeyPath<Model>, _ role: String) throws -> Int {
        guard let column = Model.crudColumnIndex(of: keyPath) else {
            throw CRUDSQLGenError("join: the \(role) key path \(keyPath) names no column of \(Model.self)")
        }
        return column
    }

    private func relation<Child: CRUDModel>(_ keyPath: KeyPath<OverAllForm, [Child]?>) throws -> Int {
        guard let relation = OverAllForm.crudRelationIndex(of: keyPath) else {
            throw CRUDSQLGenError("join: \(keyPath) is not a relation property ([\(Child.self)]?) of \(OverAllForm.self)")
        }
        return relation
    }

    /// Fills `to` with the rows of `NewType` whose `equals` column matches this table's `on` column.
    /// Unjoined relations stay `nil`; a joined one with no matches is `[]`.
    /// - Throws: `CRUDSQLGenError` when a key path names no column or `to` is no relation.
    public func join<NewType: CRUDModel, KeyType: CRUDValue>(
        _ to: KeyPath<OverAllForm, [NewType]?>,
        on: KeyPath<OverAllForm, KeyType>,
        equals: KeyPath<NewType, KeyType>
    ) throws -> Join<OverAllForm, Self, NewType, KeyType> {
        try executor.building {
            try joined(to, on: on, equals: equals)
        }
    }

    /// The same join where the child's key is optional (a nullable foreign key): rows whose key
    /// is NULL belong to no parent.
    public func join<NewType: CRUDModel, KeyType: CRUDValue>(
        _ to: KeyPath<OverAllForm, [NewType]?>,
        on: KeyPath<OverAllForm, KeyType>,
        equals: KeyPath<NewType, KeyType?>
    ) throws -> Join<OverAllForm, Self, NewType, KeyType> {
        try executor.building {
            try joined(to, on: on, equals: equals)
        }
    }

    private func joined<NewType: CRUDModel, KeyType: CRUDValue>(
        _ to: KeyPath<OverAllForm, [NewType]?>, on: PartialKeyPath<OverAllForm>, equals: PartialKeyPath<NewType>
    ) throws -> Join<OverAllForm, Self, NewType, KeyType> {
        var plan = self.plan
        plan.joins.append(CRUDQueryPlan.Join(
            relation: try relation(to), model: NewType.self,
            parentColumn: try column(on, "on"), childColumn: try column(equals, "equals")))
        return Join(database: database, plan: plan)
    }

    /// Fills `to` with the rows of `NewType` linked to this table's rows through the junction table
    /// `Pivot`: `on` = `equals` links the pivot to this table, `and` = `is` links it to `NewType`.
    /// - Throws: `CRUDSQLGenError` when a key path names no column or `to` is no relation.
    public func join<NewType: CRUDModel, Pivot: CRUDModel, FirstKeyType: CRUDValue, SecondKeyType: CRUDValue>(
        _ to: KeyPath<OverAllForm, [NewType]?>,
        with: Pivot.Type,
        on: KeyPath<OverAllForm, FirstKeyType>,
        equals: KeyPath<Pivot, FirstKeyType>,
        and: KeyPath<NewType, SecondKeyType>,
        is: KeyPath<Pivot, SecondKeyType>
    ) throws -> JoinPivot<OverAllForm, Self, NewType, Pivot, FirstKeyType, SecondKeyType> {
        try executor.building {
            var plan = self.plan
            plan.joins.append(CRUDQueryPlan.Join(
                relation: try relation(to), model: NewType.self,
                parentColumn: try column(on, "on"), childColumn: try column(and, "and"),
                pivot: CRUDQueryPlan.Pivot(model: Pivot.self, parentColumn: try column(equals, "equals"), childColumn: try column(`is`, "is"))))
            return JoinPivot(database: database, plan: plan)
        }
    }
}

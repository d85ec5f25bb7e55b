/// The start of an operation chain on the table of `A`: `db.table(Person.self)`.
public struct Table<A: CRUDModel, D: DatabaseProtocol>: TableProtocol, JoinAble, WhereAble, OrderAble, LimitAble,
    SelectAble, UpdateAble, DeleteAble, PlainTable {
    public typealias OverAllForm = A
    public typealias Form = A
    /// The database the chain runs on.
    public let database: D
    /// What the chain has said so far.
    public let _plan: CRUDQueryPlan

    @inlinable
    init(database: D) {
        self.database = database
        _plan = CRUDQueryPlan(root: A.self)
    }
}

/// The result of `create`: the table, ready for `insert`.
public struct Create<A: CRUDModel, D: DatabaseProtocol> {
    /// The created table.
    public let table: Table<A, D>
}

/// The result of `index`.
public struct Index<A: CRUDModel, Parent: TableProtocol> {
    /// The table the index was made on.
    public let table: Parent
}

/// What an operation chain has said so far: the table, its joins, orderings, limits and filter.
/// Chains build it as they go; nothing runs until `select`, `count`, `first`, `update` or `delete`.
/// Public only as the type of a chain step's `_plan`: nothing in it is for users.
@_documentation(visibility: internal)
public struct CRUDQueryPlan: Sendable {
    struct Order: Sendable {
        var column: Int
        var descending: Bool
        /// For a root order term by a joined column (`orderParents`): the join whose children's
        /// column `column` is, the smallest value of each root row's children ascending, the largest
        /// descending.
        var joined: Int? = nil
    }

    @usableFromInline
    struct Limit: Sendable {
        @usableFromInline var max: Int?
        @usableFromInline var skip: Int
    }

    /// The junction table of a many-to-many join.
    struct Pivot: Sendable {
        var model: any CRUDModel.Type
        /// The pivot column equal to the root's key.
        var parentColumn: Int
        /// The pivot column equal to the child's key.
        var childColumn: Int
    }

    struct Join: Sendable {
        /// The relation property it fills, as a position in the root's relations.
        var relation: Int
        var model: any CRUDModel.Type
        /// The root's key column.
        var parentColumn: Int
        /// The child's column equal to the root's key (or to the pivot's child column).
        var childColumn: Int
        var pivot: Pivot?
        var order: [Order] = []
        var limit: Limit?
    }

    @usableFromInline var root: any CRUDModel.Type
    @usableFromInline var filter: CRUDBooleanExpression?
    /// What most plans lack, in one box that is replaced when one of them changes: copying a plan,
    /// which each step of a chain does, then retains the filter and this box at most. The plan stays
    /// this small on purpose: with a few words more, the compiler destroys a chain step through the
    /// runtime's generic value witnesses (about 280 instructions a step) instead of releasing its
    /// references directly; `@usableFromInline`, so that the caller's module sees the whole layout.
    @usableFromInline var extras: Extras?

    @usableFromInline
    final class Extras: Sendable {
        @usableFromInline let parts: Parts
        @usableFromInline let joinsNothing: Bool

        init(_ parts: Parts) {
            self.parts = parts
            joinsNothing = parts.joins.isEmpty
        }
    }

    @usableFromInline
    struct Parts: Sendable {
        var order: [Order] = []
        var joins: [Join] = []
        @usableFromInline var limit: Limit?
        var deferredError: CRUDSQLGenError?
        var rowLock: CRUDRowLock?
    }

    /// Changes one part, in a new box: plans share boxes.
    private mutating func change(_ body: (inout Parts) -> Void) {
        var parts = extras?.parts ?? Parts()
        body(&parts)
        extras = Extras(parts)
    }

    var order: [Order] {
        get { extras?.parts.order ?? [] }
        set { change { $0.order = newValue } }
    }

    var joins: [Join] {
        get { extras?.parts.joins ?? [] }
        set { change { $0.joins = newValue } }
    }

    /// The root's limit.
    @usableFromInline var limit: Limit? {
        get { extras?.parts.limit }
        set { change { $0.limit = newValue } }
    }

    /// How the root rows are locked until the transaction ends, if at all.
    var rowLock: CRUDRowLock? {
        get { extras?.parts.rowLock }
        set { change { $0.rowLock = newValue } }
    }

    /// The first mistake made while chaining (a key path that names no column, a negative limit),
    /// thrown when the chain runs.
    var deferredError: CRUDSQLGenError? {
        get { extras?.parts.deferredError }
        set { change { $0.deferredError = newValue } }
    }

    /// At most the first result, after the skip: the limit of `first()`.
    @usableFromInline var firstLimit: Limit {
        Limit(max: Swift.min(limit?.max ?? 1, 1), skip: limit?.skip ?? 0)
    }

    /// Whether the query joins nothing: `first()` then reads its row without a cursor.
    @inlinable var isJoinFree: Bool { extras?.joinsNothing ?? true }

    @usableFromInline
    init(root: any CRUDModel.Type) {
        self.root = root
    }

    /// The names of the tables the query reads: its own, its joins' and their junction tables.
    var tables: Set<String> {
        var names: Set<String> = [root.crudSchema.name]
        for join in joins {
            names.insert(join.model.crudSchema.name)
            if let pivot = join.pivot { names.insert(pivot.model.crudSchema.name) }
        }
        return names
    }

    /// Adds orderings to the most recent table or join.
    mutating func addOrder<Model: CRUDModel>(_ keyPaths: [PartialKeyPath<Model>], descending: Bool) {
        var columns: [Int] = []
        for keyPath in keyPaths {
            guard let column = Model.crudColumnIndex(of: keyPath) else {
                deferError(CRUDSQLGenError("order: \(keyPath) names no column of \(Model.self)"))
                return
            }
            columns.append(column)
        }
        addOrder(columns: columns, descending: descending)
    }

    /// Adds orderings by column positions to the most recent table or join.
    mutating func addOrder(columns: [Int], descending: Bool) {
        let terms = columns.map { Order(column: $0, descending: descending) }
        if joins.isEmpty {
            order += terms
        } else {
            joins[joins.count - 1].order += terms
        }
    }

    /// Orders the root rows by the most recent join's children, whose model `keyPaths` name.
    mutating func addParentOrder<Model: CRUDModel>(_ keyPaths: [PartialKeyPath<Model>], descending: Bool) {
        guard let join = joins.indices.last, joins[join].model == Model.self else {
            return deferError(CRUDSQLGenError("orderParents: it orders the root rows by the children of the join just before it, "
                + "and \(Model.self) is not that join's model: call it right after join(…) of \(Model.self)"))
        }
        for keyPath in keyPaths {
            guard let column = Model.crudColumnIndex(of: keyPath) else {
                return deferError(CRUDSQLGenError("orderParents: \(keyPath) names no column of \(Model.self)"))
            }
            order.append(Order(column: column, descending: descending, joined: join))
        }
    }

    /// Sets the limit of the most recent table or join.
    mutating func setLimit(max: Int?, skip: Int) {
        if let max, max < 0 {
            return deferError(CRUDSQLGenError("limit: the maximum must not be negative (got \(max))"))
        }
        if skip < 0 {
            return deferError(CRUDSQLGenError("limit: skip must not be negative (got \(skip))"))
        }
        if joins.isEmpty {
            limit = Limit(max: max, skip: skip)
        } else {
            joins[joins.count - 1].limit = Limit(max: max, skip: skip)
        }
    }

    mutating func deferError(_ error: CRUDSQLGenError) {
        if deferredError == nil { deferredError = error }
    }

    /// Throws the first chaining mistake, if any.
    func validate() throws {
        if let deferredError { throw deferredError }
    }

    /// The same, for a plan about to run on a session that is in a transaction or not: a plan that
    /// locks its rows needs one, since outside it the lock would end with the statement.
    func validate(inTransaction: Bool) throws {
        try validate()
        if !inTransaction, let rowLock {
            throw CRUDSQLGenError("\(rowLock == .update ? "forUpdate()" : "forShare()"): a row lock lasts until the transaction ends, "
                + "and outside one it would end with the statement: read and write inside transaction { }")
        }
    }
}

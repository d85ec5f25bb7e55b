/// One step of an operation chain. Each step knows the overall result type, the type its `order`
/// and `limit` apply to (`Form`: the table, or the most recently joined type), the database, and the
/// plan built so far. Steps are values of the database and the plan, so they can go to other tasks.
public protocol TableProtocol: Sendable {
    /// The type `select` produces and `update`/`delete` change.
    associatedtype OverAllForm: CRUDModel
    /// The type of the most recent `table` or `join`.
    associatedtype Form: CRUDModel
    /// The database the chain runs on.
    associatedtype DatabaseType: DatabaseProtocol
    /// The database the chain runs on.
    var database: DatabaseType { get }
    /// What the chain has said so far (tables, joins, conditions, order, limits), which the SQL
    /// builder turns into statements. Underscored: the library's own, out of users' completions.
    var _plan: CRUDQueryPlan { get }
}

extension TableProtocol {
    /// The plan, under the name the library's code uses.
    @inlinable
    var plan: CRUDQueryPlan { _plan }
}

/// Steps after which `join` may follow: `table`, `join`, `order`, `limit`.
public protocol JoinAble: TableProtocol {}
/// Steps after which `where` may follow: `table`, `join`, `order`, `limit`.
public protocol WhereAble: TableProtocol {}
/// Steps after which `order` may follow: `table`, `join`, `order`, `limit`.
public protocol OrderAble: TableProtocol {}
/// Steps after which `limit` may follow: `table`, `join`, `order`.
public protocol LimitAble: TableProtocol {}
/// Steps that can run as a query: every step but the writes.
public protocol SelectAble: TableProtocol {}
/// Steps that `update` may follow: `table`, and `where` directly after `table`.
public protocol UpdateAble: TableProtocol {}
/// Steps that `delete` may follow: `table`, and `where` directly after `table`.
public protocol DeleteAble: TableProtocol {}
/// `Table` alone: a `where` right after it may also update and delete.
public protocol PlainTable: TableProtocol {}

extension TableProtocol {
    @usableFromInline
    var executor: CRUDExecutor<DatabaseType.Configuration.Connection> { database._executor }
}

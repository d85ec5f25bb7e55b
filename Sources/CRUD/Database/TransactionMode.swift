/// How a transaction begins: its locking on SQLite, its isolation on PostgreSQL.
public enum TransactionMode: Sendable, Hashable {
    /// The backend's usual write transaction: `BEGIN IMMEDIATE` on SQLite (the write lock is taken at
    /// once, so the transaction never fails halfway for want of it), `BEGIN` (read committed) on
    /// PostgreSQL.
    case `default`
    /// SQLite: `BEGIN DEFERRED`, locks taken when first needed.
    case deferred
    /// SQLite: `BEGIN IMMEDIATE`.
    case immediate
    /// SQLite: `BEGIN EXCLUSIVE`.
    case exclusive
    /// PostgreSQL: `BEGIN ISOLATION LEVEL …`, optionally `READ ONLY`.
    case isolation(IsolationLevel, readOnly: Bool = false)

    /// PostgreSQL's isolation levels.
    public enum IsolationLevel: String, Sendable, Hashable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }
}

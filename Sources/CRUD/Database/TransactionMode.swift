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
        /// Each statement sees what was committed before it began (PostgreSQL's default).
        case readCommitted = "READ COMMITTED"
        /// The whole transaction sees one snapshot; a conflicting write fails with
        /// `.serializationFailure`.
        case repeatableRead = "REPEATABLE READ"
        /// As if the transactions ran one after another; one that cannot be fails with
        /// `.serializationFailure`, to be retried.
        case serializable = "SERIALIZABLE"
    }
}

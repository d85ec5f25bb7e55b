extension Database {
    /// A database on a connection of its own, as Sqlable's children are: give it to one thread or
    /// queue and use it there, for work that should not wait for the shared pool or that controls
    /// its transactions explicitly (`beginTransaction()`, `commitTransaction()`,
    /// `rollbackTransaction()`). Its connection closes when the last copy of the child goes away.
    /// On SQLite it coordinates with the other connections through the database's own locking (up to
    /// the busy timeout); an in-memory database has only one connection, which the child shares.
    /// - Throws: `CRUDSQLExeError` when the connection cannot be opened.
    public func createChild() throws -> Database<C> {
        Database(configuration: configuration, executor: try executor.child())
    }

    /// Begins a transaction on this child's connection that stays open until `commitTransaction()`
    /// or `rollbackTransaction()`; called again inside one, it opens a savepoint. Only a child (or an
    /// in-memory database) has a connection of its own to hold a transaction open across calls.
    /// - Throws: `CRUDSQLGenError` on a pooled database; `CRUDSQLExeError`.
    public func beginTransaction(_ mode: TransactionMode = .default) throws {
        let session = try executor.singleSession(for: "beginTransaction()")
        try session.locked { try session.begin(mode) }
    }

    /// Commits the innermost transaction `beginTransaction()` opened (releases its savepoint).
    /// - Throws: `CRUDSQLGenError` when none is open; `CRUDSQLExeError` when the commit fails, after
    ///   which the transaction is still open for `rollbackTransaction()`.
    public func commitTransaction() throws {
        let session = try executor.singleSession(for: "commitTransaction()")
        try session.locked { try session.commit() }
    }

    /// Rolls back the innermost transaction `beginTransaction()` opened.
    /// - Throws: `CRUDSQLGenError` when none is open.
    public func rollbackTransaction() throws {
        let session = try executor.singleSession(for: "rollbackTransaction()")
        try session.locked {
            guard session.transactionDepth > 0 else {
                throw CRUDLogging.logged(CRUDSQLGenError("rollbackTransaction(): no transaction is open on this connection"))
            }
            session.rollBack()
        }
    }
}

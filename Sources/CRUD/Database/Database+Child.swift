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
        try executor.beginTransaction(mode)
    }

    /// Commits the innermost transaction `beginTransaction()` opened (releases its savepoint).
    /// - Throws: `CRUDSQLGenError` when none is open; `CRUDSQLExeError` when the commit fails, after
    ///   which the transaction is still open for `rollbackTransaction()`.
    public func commitTransaction() throws {
        try executor.commitTransaction()
    }

    /// Rolls back the innermost transaction `beginTransaction()` opened.
    /// - Throws: `CRUDSQLGenError` when none is open.
    public func rollbackTransaction() throws {
        try executor.rollbackTransaction()
    }
}

extension Database {
    /// Sqlable's error callback: called with every error the library throws from this database (and
    /// from its children), once, on the thread that throws it, just before it is thrown; an error
    /// that a transaction rethrows is not passed again. Errors your own code throws are not passed
    /// unless you call `fail(_:)`. Set it once, early; it is called from any thread.
    public var didFail: (@Sendable (any Error) -> Void)? {
        get { executor.failures.current }
        nonmutating set { executor.failures.current = newValue }
    }

    /// Passes an error of your own to `didFail`, as Sqlable's `fail` does.
    public func fail(_ error: any Error) {
        executor.failures.current?(error)
    }
}

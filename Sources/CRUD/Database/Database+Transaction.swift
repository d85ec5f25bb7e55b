// The transaction entry points; the executor's `transaction` finds or leases the session and the
// session's `transaction` begins, nests (savepoints) and ends it.

extension Database {
    /// Runs `body` between BEGIN and COMMIT on one connection; every call of `db` in the body (on
    /// this thread) runs on it, and no other thread's or task's work lands inside it. Any error thrown
    /// rolls the work back and is rethrown. Transactions nest: an inner one is a savepoint, so an
    /// inner failure the outer body catches undoes only the inner work.
    /// - Parameters:
    ///   - mode: how the transaction begins (SQLite's locking, PostgreSQL's isolation).
    ///   - body: the work of the transaction.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; `CRUDSQLExeError` when the database fails or ended the
    ///   transaction underneath; `CRUDSQLGenError` for a mode the backend does not have.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func transaction<T>(_ mode: TransactionMode = .default, _ body: () throws -> T) throws -> T {
        try executor.transaction(mode, body)
    }

    /// Runs the async `body` in a transaction on one connection: every call of `tx` (or of `db`)
    /// in it runs there, one at a time, and no other task's work lands inside it. An error rolls
    /// the work back and is rethrown; nested calls are savepoints.
    /// - Parameters:
    ///   - mode: how the transaction begins (SQLite's locking, PostgreSQL's isolation).
    ///   - body: the work of the transaction.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; `CRUDSQLExeError`; `CRUDSQLGenError` for a mode the backend lacks.
    @discardableResult
    public func transaction<T>(_ mode: TransactionMode = .default, _ body: (Database) async throws -> T) async throws -> T {
        try await executor.transaction(mode) { try await body(self) }
    }
}

// Statement timeouts: the database's (its configuration's `statementTimeout`), and a task's own.

extension Database {
    /// Runs `body` with every call it makes to this database limited to `timeout`: a call whose
    /// statements run longer is cancelled (the database interrupts the running statement), throws
    /// `CRUDSQLExeError` of kind `.timedOut` and commits nothing; a transaction it was in rolls
    /// back, and the connection goes back to the pool usable. Overrides the configuration's
    /// `statementTimeout`; `nil` lifts the limit. Each call has the whole `timeout`: a
    /// transaction's calls one each, a join's two statements one together. A task's cancellation
    /// stops a running statement the same way, with `CancellationError`.
    ///
    ///     let todos = try await db.withStatementTimeout(.seconds(2)) {
    ///         try await db.table(Todo.self).where(\Todo.done == false).select()
    ///     }
    ///
    /// - Throws: what `body` throws.
    public func withStatementTimeout<T>(_ timeout: Duration?, _ body: () throws -> T) rethrows -> T {
        try executor.timeoutScopes.counting {
            try CRUDBindings.$current.withValue(bindingTimeout(timeout)) { try body() }
        }
    }

    /// The same for an async `body`.
    /// - Throws: what `body` throws.
    public func withStatementTimeout<T>(_ timeout: Duration?, isolation: isolated (any Actor)? = #isolation,
                                        _ body: () async throws -> T) async rethrows -> T {
        try await executor.timeoutScopes.counting {
            try await CRUDBindings.$current.withValue(bindingTimeout(timeout), operation: body)
        }
    }

    private func bindingTimeout(_ timeout: Duration?) -> CRUDBindings {
        CRUDBindings.current.adding(.timeout(executor: ObjectIdentifier(executor), timeout))
    }
}

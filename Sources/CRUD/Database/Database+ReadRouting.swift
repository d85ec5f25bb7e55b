// Where reads go when a configuration routes them away from the writers (PostgreSQL standbys).

extension Database {
    /// Runs `body` with every read it makes of this database on a writer (the primary), where the
    /// configuration sends reads outside transactions to standbys, which may not have replayed the
    /// latest commits yet: inside, a read sees every write acknowledged before it, the task's own
    /// included. Where reads already see them (SQLite, a configuration without standby reads),
    /// `body` runs as it is. Transactions always run on a writer.
    ///
    ///     try await db.table(Todo.self).insert(todo)
    ///     let mine = try await db.readingFromPrimary { try await db.table(Todo.self).where(\Todo.id == todo.id).first() }
    ///
    /// - Throws: what `body` throws.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func readingFromPrimary<T>(_ body: () throws -> T) rethrows -> T {
        let pool = executor.pool
        guard pool.readersLag else { return try body() }
        return try pool.writerReadScopes.counting {
            try CRUDBindings.$current.withValue(CRUDBindings.current.adding(.writerReads(pool: ObjectIdentifier(pool)))) { try body() }
        }
    }

    /// The same for an async `body`.
    /// - Throws: what `body` throws.
    public func readingFromPrimary<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        let pool = executor.pool
        guard pool.readersLag else { return try await body() }
        return try await pool.writerReadScopes.counting {
            try await CRUDBindings.$current.withValue(CRUDBindings.current.adding(.writerReads(pool: ObjectIdentifier(pool))), operation: body)
        }
    }
}

// Ending a database's life: what a server does as it stops (and what swift-service-lifecycle's
// graceful shutdown calls).

extension Database {
    /// Whether the database answers now, for a server's readiness check: runs a statement that
    /// reads nothing, on a connection of the pool, which opens one if none is open (trying for the
    /// pool's `connectRetry`).
    /// - Throws: `CRUDSQLExeError` saying why not: of kind `.connectionLost` for a server that
    ///   cannot be reached, `.shutDown` after `shutdown()`.
    public func ping() async throws {
        try await executor.run(CRUDQueryOperation.ping())
    }

    /// The same, blocking the calling thread.
    /// - Throws: as the async form.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func ping() throws {
        try executor.ping()
    }

    /// Shuts the database down: calls made from now on fail with a `CRUDSQLExeError` of kind
    /// `.shutDown`, as do calls waiting for a connection; the calls under way (a transaction on
    /// another task, a cursor being read) finish, for up to `gracePeriod`. Those still running
    /// then are interrupted: their statements are cancelled on the server, their transactions
    /// roll back, they fail with a `CRUDSQLExeError` of kind `.shutDown`, and their connections
    /// close; the shutdown logs a warning saying how many there were. (A call between two
    /// statements, such as a transaction's body doing other work, cannot be interrupted: the
    /// shutdown stops waiting for it a second later, logs an error, and its connection closes as
    /// it ends.) The idle connections close, and the observers end (`changes(of:)` and `observe()`
    /// sequences finish after the changes already committed). Calling it again waits the same way
    /// and succeeds. The children (`createChild()`) are databases of their own, shut down or
    /// released separately. Suspends the calling task while it waits, without holding a thread;
    /// cancelling the task does not cut the shutdown short.
    /// - Parameter gracePeriod: how long the calls under way may still run; 10 seconds by default.
    /// - Throws: `CRUDSQLExeError` of kind `.shutDown` when called inside one of this database's
    ///   transactions (it would wait for itself).
    public func shutdown(gracePeriod: Duration = .seconds(10)) async throws {
        try await executor.shutdown(gracePeriod: gracePeriod, reason: nil)
    }

    /// The same, blocking the calling thread while it waits: for programs without tasks.
    /// - Throws: as the async form.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func shutdown(gracePeriod: Duration = .seconds(10)) throws {
        try executor.shutdown(gracePeriod: gracePeriod)
    }

    /// Shuts the database down at once, as `shutdown(gracePeriod: .zero)` does, saying in its log
    /// that `reason` left no time for the calls under way: for `DatabaseService`, whose service
    /// group was cancelled.
    @_spi(CRUDServiceLifecycle)
    public func shutdown(interruptingNow reason: String) async throws {
        try await executor.shutdown(gracePeriod: .zero, reason: reason)
    }
}

import Foundation

// Where a transaction runs: on the session already bound to this thread or task (a savepoint),
// or on a session leased for it; the session begins and ends it.

extension CRUDExecutor {
    /// Runs `body` in a transaction on one connection, on this thread; nested calls are savepoints.
    func transaction<T>(_ mode: TransactionMode, _ body: () throws -> T) throws -> T {
        if let bound = boundSession() { return try bound.locked { try bound.transaction(mode, body) } }
        let session = typed(try pool.lease(.write))
        defer { pool.giveBack(session) }
        return try session.locked {
            try CRUDBindings.$current.withValue(binding(session)) { try session.transaction(mode, body) }
        }
    }

    /// Runs `body`, which changes the schema, in a transaction whose foreign keys are off until it
    /// ends and checked before it commits (`CRUDConnection.withForeignKeysOff`), for steps that
    /// rebuild tables. Inside a transaction already, `body` runs in a savepoint of it, with the
    /// enforcement as it is. Where DDL is not transactional (MySQL), see `CRUDSession.schemaChange`.
    func schemaTransaction<T>(_ operation: String, _ body: (Session) throws -> T) throws -> T {
        if let bound = boundSession() { return try bound.locked { try bound.schemaChange(operation) { try body(bound) } } }
        let session = typed(try pool.lease(.write))
        defer { pool.giveBack(session) }
        return try session.locked {
            try CRUDBindings.$current.withValue(binding(session)) {
                try session.connection.withForeignKeysOff {
                    try session.schemaChange(operation) {
                        let result = try body(session)
                        try session.connection.checkForeignKeys()
                        return result
                    }
                }
            }
        }
    }

    /// Runs `body` with one session bound to everything it runs, holding the dialect's migration
    /// lock from before its first statement to after its last, so that migrators (threads, tasks,
    /// processes) run one after another; without such a lock, `body` runs as it is.
    func holdingMigrationLock<T>(_ body: () throws -> T) throws -> T {
        guard let (lock, unlock) = dialect.migrationLock else { return try body() }
        func locked(_ session: Session) throws -> T {
            let held = try session.withStatement(lock) { statement in try statement.step() && statement.readInt64(0) == 1 }
            guard held else {
                throw CRUDLogging.logged(CRUDSQLExeError("migrate: the migration lock could not be taken (\(lock) did not return 1): "
                    + "another migrator held it for a day, or the server refused it", sql: lock, kind: .busyOrLocked))
            }
            // A lost connection gives its lock up with it; the unlock's failure is logged by `run`.
            defer { try? session.run(unlock, ending: true) }
            return try body()
        }
        if let bound = boundSession() { return try bound.locked { try locked(bound) } }
        let session = typed(try pool.lease(.write))
        defer { pool.giveBack(session) }
        return try session.locked {
            try CRUDBindings.$current.withValue(binding(session)) { try locked(session) }
        }
    }

    /// Runs the async `body` in a transaction on one connection. The body's calls run on it, one at
    /// a time; nested calls are savepoints.
    func transaction<T>(_ mode: TransactionMode, _ body: () async throws -> T) async throws -> T {
        if let bound = boundSession() { return try await transaction(mode, on: bound, body) }
        // Held while the body awaits, and given back when the task runs again.
        let session = typed(try await pool.lease(.write, hold: .acrossSuspension))
        defer { pool.giveBack(session) }
        return try await CRUDBindings.$current.withValue(binding(session)) { try await transaction(mode, on: session, body) }
    }

    fileprivate func transaction<T>(_ mode: TransactionMode, on session: Session, _ body: () async throws -> T) async throws -> T {
        try await on(session) { try session.begin(mode) }
        do {
            let result = try await body()
            try await on(session) { try session.commit() }
            return result
        } catch {
            _ = try? await on(session) { session.rollBack() }
            throw error
        }
    }

    /// Runs `body` with `session`: inline on the library's threads, else on the session's queue.
    fileprivate func on<T>(_ session: Session, _ body: @escaping () throws -> T) async throws -> T {
        if CRUDThreadMarker.isMarked { return try session.locked(body) }
        return try await session.perform(body)
    }
}

import Foundation

// Where a transaction runs: on the session already bound to this thread or task (a savepoint),
// or on a session leased for it; the session begins and ends it. Each entry is a boundary of the
// funnel: an error leaving it is logged and reported (`reporting`), once.

extension CRUDExecutor {
    /// Runs `body` in a transaction on one connection, on this thread; nested calls are savepoints.
    func transaction<T>(_ mode: TransactionMode, _ body: () throws -> T) throws -> T {
        try reporting {
            if let bound = boundSession() { return try bound.locked { try bound.transaction(mode, body) } }
            return try traced { try transactionOnLeasedSession(.write, mode, body) }
        }
    }

    /// Runs `body` in a transaction of `mode` on a session leased for `access`, bound to it.
    private func transactionOnLeasedSession<T>(_ access: CRUDAccess, _ mode: TransactionMode, _ body: () throws -> T) throws -> T {
        let session = typed(try pool.lease(access))
        defer { pool.giveBack(session) }
        return try session.locked {
            try CRUDBindings.$current.withValue(binding(session)) { try session.transaction(mode, body) }
        }
    }

    /// Begins a transaction that stays open across calls (a savepoint inside one) on the one
    /// connection of a child or an in-memory database.
    /// - Throws: `CRUDSQLGenError` for a pooled database; `CRUDSQLExeError`.
    func beginTransaction(_ mode: TransactionMode) throws {
        try reporting {
            let session = try singleSession(for: "beginTransaction()")
            try session.locked { try session.begin(mode) }
        }
    }

    /// Commits the innermost transaction `beginTransaction` opened.
    /// - Throws: `CRUDSQLGenError` when none is open; `CRUDSQLExeError`.
    func commitTransaction() throws {
        try reporting {
            let session = try singleSession(for: "commitTransaction()")
            try session.locked { try session.commit() }
        }
    }

    /// Rolls back the innermost transaction `beginTransaction` opened.
    /// - Throws: `CRUDSQLGenError` when none is open.
    func rollbackTransaction() throws {
        try reporting {
            let session = try singleSession(for: "rollbackTransaction()")
            try session.locked {
                guard session.transactionDepth > 0 else {
                    throw CRUDSQLGenError("rollbackTransaction(): no transaction is open on this connection")
                }
                session.rollBack()
            }
        }
    }

    /// Runs the schema changes `body` makes to `tables` (`CREATE`, `ALTER`, `DROP`, and the tables
    /// their foreign keys reference): where the database's DDL is transactional, in a transaction of
    /// their own (`single` skips it for one statement), or in a savepoint of the caller's; where every
    /// schema change commits the open transaction (MySQL), outside any, and inside one on a
    /// connection of their own (`besideTransaction`). `check` finds the caller's mistakes first,
    /// before any statement runs.
    /// - Throws: `CRUDSQLGenError` naming `operation` when the caller's transaction used one of
    ///   `tables` on MySQL; what `body` throws.
    func schemaChange<T>(_ operation: String, tables: [String], single: Bool = false, checking check: () throws -> Void = {},
                         _ body: (CRUDSchemaSteps<Connection>) throws -> T) throws -> T {
        try withSession(.write) { session in
            try check()
            let steps = CRUDSchemaSteps(session)
            if dialect.transactionalDDL { return single ? try body(steps) : try session.transaction(.default) { try body(steps) } }
            guard session.transactionDepth > 0 else { return try body(steps) }
            return try besideTransaction(of: session, operation, tables: tables) { try body(CRUDSchemaSteps($0)) }
        }
    }

    /// Runs the one schema statement `step` (worked out inside the boundary) as `schemaChange` does,
    /// taking an error that `alreadyDone` accepts (an index that exists, where the database has no
    /// `IF NOT EXISTS`) for success.
    /// - Throws: what `schemaChange` throws; `CRUDSQLExeError`.
    func schemaChange(_ operation: String, tables: [String], run step: @autoclosure () throws -> CRUDStatementPlan,
                      alreadyDone: (CRUDSQLExeError) -> Bool) throws {
        try schemaChange(operation, tables: tables, single: true) { steps in
            let step = try step()
            do {
                try steps.run(step)
            } catch let error as CRUDSQLExeError where alreadyDone(error) {}
        }
    }

    /// Runs `body`, which changes the schema of `tables`, in a transaction whose foreign keys are
    /// off until it ends and checked before it commits (`CRUDConnection.withForeignKeysOff`), for
    /// steps that rebuild tables. Inside a transaction already, it is `schemaChange`: a savepoint
    /// of it, with the enforcement as it is, or on MySQL a connection of its own. `check` finds the
    /// caller's mistakes first, before any statement runs.
    func schemaTransaction<T>(_ operation: String, tables: [String], checking check: () throws -> Void = {},
                              _ body: (CRUDSchemaSteps<Connection>) throws -> T) throws -> T {
        try reporting {
            try check()
            return try schemaTransactionOnSession(operation, tables: tables, body)
        }
    }

    private func schemaTransactionOnSession<T>(_ operation: String, tables: [String],
                                               _ body: (CRUDSchemaSteps<Connection>) throws -> T) throws -> T {
        if boundSession() != nil { return try schemaChange(operation, tables: tables, body) }
        let session = typed(try pool.lease(.write))
        defer { pool.giveBack(session) }
        return try session.locked {
            try CRUDBindings.$current.withValue(binding(session)) {
                try session.connection.withForeignKeysOff(using: session.catalog) {
                    func checked() throws -> T {
                        let result = try body(CRUDSchemaSteps(session))
                        try session.connection.checkForeignKeys(using: session.catalog)
                        return result
                    }
                    return dialect.transactionalDDL ? try session.transaction(.default, checked) : try checked()
                }
            }
        }
    }

    /// Runs `body`'s schema changes on a connection opened for them alone, beside the transaction
    /// that `session` holds open, where a schema change inside it would commit it (MySQL): the
    /// transaction stays open, and its rollback does not undo them. Refused when the transaction may
    /// have used one of `tables`, since it keeps their metadata locks until it ends and the other
    /// connection would wait for it forever; any other wait for a lock ends after the pool's timeout.
    /// - Throws: `CRUDSQLGenError` for a table the transaction used; `CRUDSQLExeError` of kind
    ///   `.busyOrLocked` when the wait for a lock timed out; what opening the connection and `body`
    ///   throw.
    private func besideTransaction<T>(of session: Session, _ operation: String, tables: [String],
                                      _ body: (Session) throws -> T) throws -> T {
        if let used = session.transactionMayUse(anyOf: tables) {
            throw CRUDSQLGenError("\(operation): \(dialect.name) commits the open transaction at every schema change "
                + "(CREATE, ALTER, DROP), so CRUD makes it on a connection of its own, beside the transaction; but the transaction "
                + "has used the table \"\(used)\", which \(dialect.name) keeps locked until the transaction ends, so that connection "
                + "would wait for it forever: make the change before the transaction begins or after it ends")
        }
        let side = newSession(try open(.general), role: .general)
        let seconds = Int(pool.timeout.components.seconds) + (pool.timeout.components.attoseconds > 0 ? 1 : 0)
        if let limit = dialect.lockWaitLimit(seconds: seconds) { try side.run(limit) }
        do {
            return try CRUDBindings.$current.withValue(binding(side)) { try body(side) }
        } catch let error as CRUDSQLExeError where error.kind == .busyOrLocked {
            // The driver logged the database's error as it left the statement.
            throw CRUDSQLExeError(
                "\(operation): made beside the open transaction (\(dialect.name) would commit the transaction at a schema change), "
                    + "it waited \(seconds) s for a lock that another transaction holds on a table it changes, perhaps this one through "
                    + "a foreign key, a trigger or a view: make the change before the transaction begins or after it ends "
                    + "(\(error.databaseMessage ?? error.msg))",
                sql: error.sql, code: error.code, databaseMessage: error.databaseMessage, kind: .busyOrLocked, table: error.table)
        }
    }

    /// Runs `body` with one session bound to everything it runs, holding the dialect's migration
    /// lock from before its first statement to after its last, so that migrators (threads, tasks,
    /// processes) run one after another; without such a lock, `body` runs as it is. The boundary of
    /// a migration run: a `CRUDMigrationError` leaving it is reported too.
    func holdingMigrationLock<T>(_ body: () throws -> T) throws -> T {
        do {
            return try reporting { try holdingMigrationLockOnSession(body) }
        } catch let error as CRUDMigrationError {
            // Made by the migrator inside, and passed on by nothing else: reported once, here.
            throw report(unflagged: error)
        }
    }

    private func holdingMigrationLockOnSession<T>(_ body: () throws -> T) throws -> T {
        guard let (lock, unlock) = dialect.migrationLock else { return try body() }
        // The lock is the server session's: the run keeps that session throughout.
        func locked(_ session: Session) throws -> T {
            try session.connection.keepingServerSession { try lockedOnServerSession(session) }
        }
        func lockedOnServerSession(_ session: Session) throws -> T {
            func takeLock() throws {
                let held = try session.withStatement(lock) { statement in try statement.step() && statement.readInt64(0) == 1 }
                guard held else {
                    throw CRUDSQLExeError("migrate: the migration lock could not be taken (\(lock) did not return 1): "
                        + "another migrator held it for a day, or the server refused it", sql: lock, kind: .busyOrLocked)
                }
            }
            guard let unlock else {
                // The transaction's lock: the run is one transaction, which gives it back as it ends.
                // A step that fails is rolled back to its savepoint, and the steps before it stay,
                // as under a session's lock: the transaction commits them unless it was aborted.
                let run = try session.transaction(.default) { () throws -> Result<T, any Error> in
                    try takeLock()
                    do {
                        return .success(try body())
                    } catch {
                        if session.connection.transactionStatus == .aborted { throw error }
                        return .failure(error)
                    }
                }
                return try run.get()
            }
            try takeLock()
            defer {
                do {
                    try session.run(unlock, ending: true)
                } catch {
                    // A lost connection gave the lock up with it.
                    CRUDLogging.log(.error, "migrate: releasing the migration lock failed: \(error)")
                }
            }
            return try body()
        }
        if let bound = boundSession() {
            if !dialect.transactionalDDL, bound.transactionDepth > 0 {
                throw CRUDSQLGenError("migrate: \(dialect.name) commits the open transaction at every schema change "
                    + "(CREATE, ALTER, DROP), and a migration's steps make theirs one after another: call migrate outside any transaction")
            }
            return try bound.locked { try locked(bound) }
        }
        let session = typed(try pool.lease(.write))
        defer { pool.giveBack(session) }
        return try session.locked {
            try CRUDBindings.$current.withValue(binding(session)) { try locked(session) }
        }
    }

    /// Runs the async `body` in a transaction on one connection. The body's calls run on it, one at
    /// a time; nested calls are savepoints.
    func transaction<T>(_ mode: TransactionMode, _ body: () async throws -> T) async throws -> T {
        try await reporting {
            if let bound = boundSession() { return try await transaction(mode, on: bound, body) }
            return try await traced {
                // Held while the body awaits, and given back when the task runs again.
                let session = typed(try await pool.lease(.write, hold: .acrossSuspension))
                defer { pool.giveBack(session) }
                return try await CRUDBindings.$current.withValue(binding(session)) { try await transaction(mode, on: session, body) }
            }
        }
    }

    /// Runs `body` in a transaction, or a savepoint, on `session`: where the driver executes without
    /// blocking, its `BEGIN`, `COMMIT` or rollback run in the task, each holding the session's gate,
    /// which the body's calls (and its child tasks') take in turn between them.
    fileprivate func transaction<T>(_ mode: TransactionMode, on session: Session, _ body: () async throws -> T) async throws -> T {
        guard canAwaitServer else { return try await transactionHopping(mode, on: session, body) }
        try await holding(session) { try await session.begin(mode) }
        do {
            let result = try await body()
            try await holding(session) { try await session.commit() }
            return result
        } catch {
            _ = try? await holding(session) { await session.rollBack() }
            throw error
        }
    }

    /// The same where the driver blocks, or on `CRUDThreads`: each step on the session's queue, or inline.
    private func transactionHopping<T>(_ mode: TransactionMode, on session: Session, _ body: () async throws -> T) async throws -> T {
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

    /// Runs `body`, an outermost transaction, in a span of its own when statements are traced.
    private func traced<T>(_ body: () throws -> T) throws -> T {
        guard let instruments else { return try body() }
        return try instruments.transaction(body)
    }

    /// The same for an async transaction.
    private func traced<T>(_ body: () async throws -> T) async throws -> T {
        guard let instruments else { return try await body() }
        return try await instruments.transaction(body)
    }

    /// Runs `body` with `session`: inline on the library's threads, and where the driver runs on
    /// callers' threads; else on the session's queue.
    fileprivate func on<T>(_ session: Session, _ body: @escaping () throws -> T) async throws -> T {
        if CRUDThreadMarker.isMarked { return try session.locked(body) }
        if runsOnCallersThread { await CRUDCallerThread.takeTurn() }
        return try await session.perform(here: runsOnCallersThread, body)
    }
}

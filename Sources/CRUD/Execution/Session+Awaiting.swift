/// A session's statements for an async call that awaits the server's answer in its own task
/// (`CRUDExecutor.awaiting`): the same steps as the synchronous ones (made usable, counted, timed,
/// logged, measured, cancelled), with the driver's `execute(_:)` suspending the task, not a thread,
/// until the answer is in; the rows are then read from it without waiting.
extension CRUDSession {
    /// `running(_:_:)` for a call that suspends while its statements run; `reading` when the call
    /// only reads.
    /// - Throws: what `body` throws; the cancellation's error for a call cancelled before it started.
    @inline(__always)
    nonisolated(nonsending) func running<T>(_ cancellation: CRUDCancellation, reading: Bool = false,
                                            _ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        let outer = try enter(cancellation)
        let outerReads = callReads
        callReads = reading
        defer {
            callReads = outerReads
            leave(cancellation, restoring: outer)
        }
        do {
            return try await body()
        } catch {
            throw cancellation.error(replacing: error)
        }
    }

    /// `measured(_:ending:_:)` for a statement whose answer the task awaits.
    @inlinable
    nonisolated(nonsending) func measured<T>(_ sql: String, ending: Bool = false, _ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        let cancellation = ending ? nil : cancellation
        try cancellation?.check()
        let started = CRUDLogging.statementStarts()
        let measurement = instruments?.start(sql)
        defer { CRUDLogging.statementRan(sql, since: started) }
        do {
            let result = try await body()
            if let measurement { instruments?.end(measurement, error: nil) }
            return result
        } catch {
            if let measurement { instruments?.end(measurement, error: error) }
            throw cancellation?.error(replacing: error) ?? error
        }
    }

    /// `withOwnedStatement(_:_:)` awaiting the answer: `bind` binds this run's values, the task
    /// waits for the server, and `read` reads the rows.
    @inlinable
    nonisolated(nonsending) func withOwnedStatement<T>(_ slot: CRUDStatementSlot, bind: (inout Connection.Statement) throws -> Void,
                                                       read: (Connection.Statement) throws -> T) async throws -> T {
        try await measured(slot.sql) {
            let statement = try await startOwnedAwaiting(slot)
            let result: T
            do {
                var binder = statement
                try bind(&binder)
                try await execute(statement)
                result = try read(statement)
            } catch {
                try? statement.reset()
                throw error
            }
            try statement.reset()
            return result
        }
    }

    /// `withStatement(_:_:firstParameter:_:)` awaiting the answer: prepares `sql`, binds
    /// `parameters` from `firstParameter` on and the caller's values with `bind`, waits for the
    /// server, and `read` reads the rows; while `again` says so, resets the statement and does it
    /// once more (the result is the last run's).
    @usableFromInline
    nonisolated(nonsending) func withStatement<T>(_ sql: String, _ parameters: [CRUDDatabaseValue], firstParameter: Int = 0,
                                                  bind: (inout Connection.Statement) throws -> Void = { _ in },
                                                  read: (Connection.Statement) throws -> T,
                                                  again: () -> Bool = { false }) async throws -> T {
        try await measured(sql) {
            let statement = try await preparedAwaiting(sql, parameters, firstParameter: firstParameter)
            defer { connection.release(statement) }
            let start = recorder.statementStart
            do {
                var binder = statement
                try bind(&binder)
                try await execute(statement)
                var result = try read(statement)
                while again() {
                    try statement.reset()
                    try bind(&binder)
                    try await execute(statement)
                    result = try read(statement)
                }
                statementSucceeded()
                return result
            } catch {
                recorder.dropStatement(from: start)
                throw error
            }
        }
    }

    /// `startOwned(_:)` preparing a statement the connection does not keep yet without blocking.
    /// Inlinable, as `startOwned` is: unspecialized, finding the kept statement asked the runtime
    /// for its generic types' metadata, 820 instructions of a PostgreSQL lookup.
    /// - Throws: `CRUDSQLExeError`.
    @inlinable
    nonisolated(nonsending) func startOwnedAwaiting(_ slot: CRUDStatementSlot) async throws -> Connection.Statement {
        try await ensureUsableAwaiting()
        _ = try startRun(slot.sql, ending: false)
        if let kept = keptStatement(slot) { return kept }
        return try await keepPreparedAwaiting(slot)
    }

    /// The slot's SQL prepared without blocking, and kept for it.
    /// - Throws: `CRUDSQLExeError`.
    @usableFromInline
    nonisolated(nonsending) func keepPreparedAwaiting(_ slot: CRUDStatementSlot) async throws -> Connection.Statement {
        keep(try await connection.prepareOwnedAwaiting(slot.sql), for: slot)
    }

    /// `prepared(_:_:firstParameter:)` preparing a statement the connection's cache lacks without blocking.
    /// - Throws: `CRUDSQLExeError`, `CRUDEncoderError`.
    @usableFromInline
    nonisolated(nonsending) func preparedAwaiting(_ sql: String, _ parameters: [CRUDDatabaseValue],
                                                  firstParameter: Int = 0) async throws -> Connection.Statement {
        try await ensureUsableAwaiting()
        try startPreparing(sql)
        return try binding(parameters, from: firstParameter, to: try await connection.prepareAwaiting(sql))
    }

    /// `ensureUsable()` waiting for the server without a thread: the probe and the reconnect of a
    /// connection found lost wait on the event loop (a connect to a server that does not answer
    /// takes up to its timeout, which would hold one of Swift's few cooperative threads). What
    /// `startRun` checks after it then finds nothing to do.
    /// - Throws: as `ensureUsable()`.
    @usableFromInline
    nonisolated(nonsending) func ensureUsableAwaiting() async throws {
        guard transactionDepth == 0, probeBeforeUse || !connection.isUsable else { return }
        if probeBeforeUse {
            probeBeforeUse = false
            await connection.probeAwaiting()
        }
        if !connection.isUsable {
            // Kept statements die with the old connection.
            ownedStatements.removeAll()
            try await connection.reconnectAwaiting()
            logOpeningStatements()
        }
    }

    /// `run(_:ending:)` awaiting the answer.
    /// - Throws: `CRUDSQLExeError`.
    nonisolated(nonsending) func run(_ sql: String, ending: Bool = false) async throws {
        try await measured(sql, ending: ending) {
            if !ending { try await ensureUsableAwaiting() }
            let start = try startRun(sql, ending: ending)
            do {
                try await connection.execute(sql)
            } catch {
                recorder.dropStatement(from: start)
                throw error
            }
        }
    }

    /// `begin(_:)` awaiting the server.
    /// - Throws: as `begin(_:)`.
    @usableFromInline
    nonisolated(nonsending) func begin(_ mode: TransactionMode) async throws {
        try await run(try beginning(mode))
        began()
    }

    /// `commit()` awaiting the server.
    /// - Throws: as `commit()`.
    @usableFromInline
    nonisolated(nonsending) func commit() async throws {
        try await run(try committing())
        committed()
    }

    /// `transaction(_:_:)` awaiting the server: `body` runs in a transaction of `mode`, or a
    /// savepoint inside one, committed when it returns and rolled back when it throws.
    /// - Throws: what `body` throws; `CRUDSQLExeError` when the transaction cannot begin or commit.
    @usableFromInline
    nonisolated(nonsending) func transaction<T>(_ mode: TransactionMode, _ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        try await begin(mode)
        do {
            let result = try await body()
            try await commit()
            return result
        } catch {
            await rollBack()
            throw error
        }
    }

    /// `rollBack()` awaiting the server.
    @usableFromInline
    nonisolated(nonsending) func rollBack() async {
        do {
            for sql in rollingBack() { try await run(sql, ending: true) }
        } catch {
            CRUDLogging.log(.error, "rolling back failed as well: \(error)")
        }
    }

    /// Runs the bound `statement`, waiting for the server's answer without a thread: a read of a
    /// call that only reads, outside a transaction, may share a server connection.
    /// - Throws: `CRUDSQLExeError`.
    @usableFromInline
    nonisolated(nonsending) func execute(_ statement: Connection.Statement) async throws {
        try await connection.execute(statement, reading: callReads && transactionDepth == 0)
    }
}

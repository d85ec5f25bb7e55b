extension CRUDConnection {
    /// Prepares `sql`, binds `parameters` from position `firstParameter` on, runs `body` with the
    /// statement and gives the statement back. Errors are logged as they leave.
    @usableFromInline
    func withStatement<T>(_ sql: String, _ parameters: [CRUDDatabaseValue] = [], firstParameter: Int = 0,
                          _ body: (Statement) throws -> T) throws -> T {
        CRUDLogging.logQuery(sql)
        do {
            try ensureTransactionIntact()
            let statement = try prepare(sql)
            defer { release(statement) }
            var binder = statement
            for (offset, value) in parameters.enumerated() {
                try value.bind(to: &binder, at: firstParameter + offset)
            }
            return try body(statement)
        } catch {
            throw CRUDLogging.logged(error)
        }
    }

    /// Runs statements without parameters, logged. Unless `ending` a transaction, it refuses to run
    /// inside a transaction that the database no longer has open.
    func run(_ sql: String, ending: Bool = false) throws {
        CRUDLogging.logQuery(sql)
        do {
            if !ending { try ensureTransactionIntact() }
            try execute(sql)
        } catch {
            throw CRUDLogging.logged(error)
        }
    }

    /// Throws when the engine is inside a transaction that the database no longer has open: the
    /// connection was lost (PostgreSQL ends the session's transaction with it) or the database rolled
    /// it back by itself (SQLite does on some I/O, disk-full and memory errors). Nothing may run then:
    /// a statement would run outside the transaction and commit on its own.
    @usableFromInline
    func ensureTransactionIntact() throws {
        guard transactionDepth > 0, transactionStatus == .none else { return }
        throw CRUDSQLExeError("the transaction is no longer open: the database ended it (a lost connection or an automatic rollback), "
            + "so none of its work is committed and nothing more runs in it; the outermost transaction throws, and calls after it start anew")
    }

    /// Runs `body` in a transaction: the outermost one with BEGIN … COMMIT, nested ones as savepoints.
    /// An error rolls back this level only and is rethrown; the outer body may catch it and go on.
    /// A transaction that the database ended or aborted underneath (see `ensureTransactionIntact`)
    /// throws at its end, never returns as if committed.
    @usableFromInline
    func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let savepoint = "crud_savepoint_\(depth)"
        try run(depth == 0 ? dialect.beginTransaction : "SAVEPOINT \(savepoint)")
        transactionDepth = depth + 1
        defer { transactionDepth = depth }
        do {
            let result = try body()
            if transactionStatus == .aborted {
                throw CRUDLogging.logged(CRUDSQLExeError(
                    "the transaction was aborted by a failed statement whose error the body caught, so none of its work is committed; "
                    + "on PostgreSQL a failed statement aborts the transaction: wrap the statements that may fail in a nested transaction (a savepoint) to go on after them"))
            }
            // `run` refuses, and throws, when the database has no transaction open any more.
            try run(depth == 0 ? "COMMIT" : "RELEASE SAVEPOINT \(savepoint)")
            return result
        } catch {
            rollBack(depth: depth, savepoint: savepoint)
            throw error
        }
    }

    /// Rolls back one level. Nothing is sent when the database has no transaction open any more:
    /// on a lost connection that would only reconnect, outside the transaction.
    private func rollBack(depth: Int, savepoint: String) {
        guard transactionStatus != .none else { return }
        do {
            if depth == 0 {
                try run("ROLLBACK", ending: true)
            } else {
                try run("ROLLBACK TO SAVEPOINT \(savepoint)", ending: true)
                try run("RELEASE SAVEPOINT \(savepoint)", ending: true)
            }
        } catch {
            CRUDLogging.log(.error, "rolling back failed as well: \(error)")
        }
    }
}

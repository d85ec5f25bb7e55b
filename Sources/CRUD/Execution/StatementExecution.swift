extension CRUDConnection {
    /// Prepares `sql`, binds `parameters` from position `firstParameter` on, runs `body` with the
    /// statement and gives the statement back. Errors are logged as they leave.
    @usableFromInline
    func withStatement<T>(_ sql: String, _ parameters: [CRUDDatabaseValue] = [], firstParameter: Int = 0,
                          _ body: (Statement) throws -> T) throws -> T {
        CRUDLogging.logQuery(sql)
        do {
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

    /// Runs statements without parameters, logged.
    func run(_ sql: String) throws {
        CRUDLogging.logQuery(sql)
        do {
            try execute(sql)
        } catch {
            throw CRUDLogging.logged(error)
        }
    }

    /// Runs `body` in a transaction: the outermost one with BEGIN … COMMIT, nested ones as savepoints.
    /// An error rolls back this level only and is rethrown; the outer body may catch it and go on.
    @usableFromInline
    func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let savepoint = "crud_savepoint_\(depth)"
        try run(depth == 0 ? dialect.beginTransaction : "SAVEPOINT \(savepoint)")
        transactionDepth = depth + 1
        let result: T
        do {
            result = try body()
        } catch {
            transactionDepth = depth
            rollBack(depth: depth, savepoint: savepoint)
            throw error
        }
        transactionDepth = depth
        do {
            try run(depth == 0 ? "COMMIT" : "RELEASE SAVEPOINT \(savepoint)")
        } catch {
            rollBack(depth: depth, savepoint: savepoint)
            throw error
        }
        return result
    }

    private func rollBack(depth: Int, savepoint: String) {
        do {
            if depth == 0 {
                try run("ROLLBACK")
            } else {
                try run("ROLLBACK TO SAVEPOINT \(savepoint)")
                try run("RELEASE SAVEPOINT \(savepoint)")
            }
        } catch {
            CRUDLogging.log(.error, "rolling back failed as well: \(error)")
        }
    }
}

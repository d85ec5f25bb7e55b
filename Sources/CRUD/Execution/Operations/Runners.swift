/// The two runners of operations (`CRUDOperation`) and the one place where an async call's route is
/// chosen. Each runner is a short loop: ask the operation what runs next, prepare or find the
/// statement, bind, run it (blocking, or awaiting the server's answer), let the operation read it.
/// Around the loop, the session it runs on holds the rest once: `withSession` (the blocking
/// boundary: lease, statement timeout, `didFail`) and `awaiting` (the awaiting one: lease without a
/// thread, cancellation, timeout, `didFail`); the session's statements are measured, logged and
/// recorded for observers.
extension CRUDExecutor {
    /// Runs `operation` on the calling thread, which blocks while the database works.
    /// - Throws: what the operation throws deciding, binding or reading; `CRUDSQLExeError`.
    @inlinable
    func run<Operation: CRUDOperation>(_ operation: consuming Operation) throws -> Operation.Result where Operation.Connection == Connection {
        var operation = operation
        if let settled = try reporting({ try operation.settle(self) }) { return settled }
        return try withSession(operation.access) { session in try drive(&operation, on: session) }
    }

    /// Runs `operation` for an async caller, by the one route that suits it: in the caller's own
    /// task, suspending while the server answers, where the driver executes without blocking and
    /// the operation can (`canAwaitServer`); else as the blocking runner does, off Swift's
    /// cooperative threads or on the caller's own thread where the driver allows (`perform`).
    /// - Throws: as the blocking form; `CancellationError`, or `CRUDSQLExeError` of kind
    ///   `.timedOut`, for a call cancelled or timed out.
    @inlinable
    nonisolated(nonsending) func run<Operation: CRUDOperation>(_ operation: consuming Operation) async throws -> Operation.Result
        where Operation.Connection == Connection {
        var operation = operation
        if let settled = try reporting({ try operation.settle(self) }) { return settled }
        guard canAwaitServer, operation.canAwaitServer(on: self) else {
            // The caller is suspended until the operation has run: nothing else uses it meanwhile.
            nonisolated(unsafe) let settled = operation
            return try await perform(operation.access) {
                var operation = settled
                return try self.withSession(operation.access) { session in try self.drive(&operation, on: session) }
            }
        }
        return try await awaiting(operation.access) { session in try await drive(&operation, on: session) }
    }

    /// The blocking runner's loop on `session`, which the caller holds.
    /// - Throws: what the operation throws; `CRUDSQLExeError`.
    @inlinable
    func drive<Operation: CRUDOperation>(_ operation: inout Operation, on session: CRUDSession<Connection>) throws -> Operation.Result
        where Operation.Connection == Connection {
        var opened = 0
        do {
            while true {
                switch try operation.next(self, on: session) {
                case let .statement(text):
                    let result = try session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter) { statement in
                        var binder = statement
                        try operation.bind(&binder, on: session)
                        var result = try operation.read(statement, on: session)
                        while operation.runsAgain {
                            try statement.reset()
                            try operation.bind(&binder, on: session)
                            result = try operation.read(statement, on: session)
                        }
                        return result
                    }
                    if let result { return result }
                case let .kept(slot):
                    let result = try session.withOwnedStatement(slot) { statement in
                        var binder = statement
                        try operation.bind(&binder, on: session)
                        return try operation.read(statement, on: session)
                    }
                    if let result { return result }
                case let .attempt(text):
                    do {
                        let result = try session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter) { statement in
                            var binder = statement
                            try operation.bind(&binder, on: session)
                            return try operation.read(statement, on: session)
                        }
                        if let result { return result }
                    } catch let failure as CRUDSQLExeError where operation.handle(failure) {}
                case let .begin(mode):
                    try session.begin(mode)
                    opened += 1
                case .commit:
                    try session.commit()
                    opened -= 1
                case let .finished(result):
                    return result
                }
            }
        } catch {
            for _ in 0 ..< opened { session.rollBack() }
            throw error
        }
    }

    /// The awaiting runner's loop on `session`, which the caller's task holds.
    /// - Throws: what the operation throws; `CRUDSQLExeError`.
    @inlinable
    nonisolated(nonsending) func drive<Operation: CRUDOperation>(_ operation: inout Operation, on session: CRUDSession<Connection>) async throws
        -> Operation.Result where Operation.Connection == Connection {
        var opened = 0
        do {
            while true {
                switch try operation.next(self, on: session) {
                case let .statement(text):
                    let result = try await session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter,
                                                                 bind: { try operation.bind(&$0, on: session) },
                                                                 read: { try operation.read($0, on: session) }, again: { operation.runsAgain })
                    if let result { return result }
                case let .kept(slot):
                    let result = try await session.withOwnedStatement(slot, bind: { try operation.bind(&$0, on: session) },
                                                                      read: { try operation.read($0, on: session) })
                    if let result { return result }
                case let .attempt(text):
                    do {
                        let result = try await session.withStatement(text.sql, text.parameters, firstParameter: text.firstParameter,
                                                                     bind: { try operation.bind(&$0, on: session) },
                                                                     read: { try operation.read($0, on: session) })
                        if let result { return result }
                    } catch let failure as CRUDSQLExeError where operation.handle(failure) {}
                case let .begin(mode):
                    try await session.begin(mode)
                    opened += 1
                case .commit:
                    try await session.commit()
                    opened -= 1
                case let .finished(result):
                    return result
                }
            }
        } catch {
            for _ in 0 ..< opened { await session.rollBack() }
            throw error
        }
    }
}

import Foundation

// Shutting a database down: no new call starts, the calls under way finish (for up to a grace
// period), those still running after it are interrupted and their connections closed, the
// observers end, and the event loop stops unless another database uses it. The pool reports when
// it has drained to a `CRUDDrain`, which also interrupts the calls left after the grace period
// (`ShutdownDrain` decides when); the async form awaits its outcome without holding a thread, the
// synchronous form waits for it on its own.

extension CRUDExecutor {
    /// Runs a statement that reads nothing, on a connection opened (and retried) as for any call.
    /// - Throws: `CRUDSQLExeError`.
    func ping() throws {
        try run(CRUDQueryOperation.ping())
    }

    /// The error every call gets once the database is shut down.
    var shutDownError: CRUDSQLExeError {
        CRUDSQLExeError("\(pool.describe) was shut down (shutdown()): it runs nothing more; make a new configuration and a Database of it to reach it again",
                        kind: .shutDown)
    }

    /// How long the calls still running after the grace period are interrupted, again and again,
    /// before the shutdown stops waiting for them: a call between two statements (a transaction's
    /// body doing other work) cannot be interrupted, and its connection closes as it ends.
    static var interruptWindow: Duration { .seconds(1) }

    /// Shuts down, suspending the caller until the calls under way have finished or `gracePeriod`
    /// has passed (then interrupting them), and the observers have ended. `reason` says, for the
    /// log, why calls still running are interrupted; `nil` for the grace period's end.
    /// - Throws: `CRUDSQLExeError` of kind `.shutDown` when called inside one of this database's
    ///   transactions (it would wait for itself).
    func shutdown(gracePeriod: Duration, reason: String?) async throws {
        try await reporting {
            let drain = try startShutdown(gracePeriod)
            let drained = finishShutdown(await drain.outcome(), gracePeriod: gracePeriod, reason: reason)
            await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in observation.end { ended.resume() } }
            if drained { eventLoopUse?.end() }
        }
    }

    /// The same, blocking the calling thread while it waits.
    /// - Throws: as the async form.
    func shutdown(gracePeriod: Duration) throws {
        try reporting {
            let drain = try startShutdown(gracePeriod)
            let drained = finishShutdown(drain.outcome(), gracePeriod: gracePeriod, reason: nil)
            let ended = DispatchSemaphore(value: 0)
            observation.end { ended.signal() }
            ended.wait()
            if drained { eventLoopUse?.end() }
        }
    }

    /// Refuses new calls and starts the wait for those under way.
    private func startShutdown(_ gracePeriod: Duration) throws -> CRUDDrain {
        try refuseInsideTransaction()
        let pool = self.pool
        let drain = CRUDDrain(gracePeriod: gracePeriod, window: Self.interruptWindow) { pool.interruptLeased() }
        pool.shutDown(shutDownError) { drain.drained() }
        drain.start()
        return drain
    }

    /// Logs what the wait did to the calls still running; whether they all ended.
    private func finishShutdown(_ outcome: ShutdownDrain.Outcome, gracePeriod: Duration, reason: String?) -> Bool {
        guard case .interrupted(let running, let drained) = outcome else { return true }
        logInterrupted(running, drained: drained, reason: reason ?? "its grace period of \(gracePeriod) passed")
        return drained
    }

    private func refuseInsideTransaction() throws {
        guard boundSession() == nil else {
            throw CRUDSQLExeError("shutdown() inside a transaction of \(pool.describe) would wait for that transaction to end: "
                + "call it after the transaction", kind: .shutDown)
        }
    }

    /// Says what the shutdown did to the calls still running when `reason` happened: a warning
    /// when the interrupts ended them, an error when some still run.
    private func logInterrupted(_ running: Int, drained: Bool, reason: String) {
        let calls = "\(running) call(s) of \(pool.describe) still running when \(reason)"
        if drained {
            CRUDLogging.log(.warning, "shutdown(): \(calls) were interrupted (their statements cancelled, their transactions "
                + "rolled back, each failing with a CRUDSQLExeError of kind .shutDown) and their connections closed")
        } else {
            let left = pool.leasedCount
            CRUDLogging.log(.error, "shutdown(): \(calls) were interrupted, and \(left) of them had not ended \(Self.interruptWindow) later "
                + "(a call between two statements: a transaction's body doing other work, a cursor left open): each one's "
                + "connection closes as it ends; end long calls before shutting down, or give them a longer grace period")
        }
    }

    /// The error a call interrupted by the shutdown throws in place of the database's own (a
    /// cancelled statement); `error` itself otherwise.
    func interruptedByShutdown(_ error: any CRUDReportableError) -> any CRUDReportableError {
        guard let failed = error as? CRUDSQLExeError, failed.kind != .shutDown, pool.interruptedAtShutdown else { return error }
        return CRUDSQLExeError("\(pool.describe) was shut down while this call ran, and its grace period passed: the call was "
            + "interrupted, and nothing of it is committed (a transaction it was in is rolled back)",
            sql: failed.sql, code: failed.code, databaseMessage: failed.databaseMessage, kind: .shutDown)
    }
}

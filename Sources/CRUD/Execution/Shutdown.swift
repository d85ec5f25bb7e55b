import Foundation

// Shutting a database down: no new call starts, the calls under way finish (for up to a grace
// period), those still running after it are interrupted and their connections closed, the
// observers end, and the event loop stops unless another database uses it. The pool reports when
// it has drained through `CRUDDrain`, which the async form awaits without holding a thread and the
// synchronous form waits for on its own; neither wait ends early for a cancelled task, since a
// shutdown that gives up half-way would leave connections open.

extension CRUDExecutor {
    /// Runs a statement that reads nothing, on a connection opened (and retried) as for any call.
    /// - Throws: `CRUDSQLExeError`.
    func ping() throws {
        try query(.read, plan: { .ping }) { _ = try $0.step() }
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
            try refuseInsideTransaction()
            let drain = CRUDDrain()
            pool.shutDown(shutDownError) { drain.drained() }
            var drained = await drain.wait(for: gracePeriod)
            if !drained {
                let running = pool.interruptLeased()
                let until = ContinuousClock.now + Self.interruptWindow
                while !drained, ContinuousClock.now < until {
                    drained = await drain.wait(for: .milliseconds(20))
                    if !drained { _ = pool.interruptLeased() }
                }
                logInterrupted(running, drained: drained, reason: reason ?? "its grace period of \(gracePeriod) passed")
            }
            await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in observation.end { ended.resume() } }
            if drained { eventLoopUse?.end() }
        }
    }

    /// The same, blocking the calling thread while it waits.
    /// - Throws: as the async form.
    func shutdown(gracePeriod: Duration) throws {
        try reporting {
            try refuseInsideTransaction()
            let drain = CRUDDrain()
            pool.shutDown(shutDownError) { drain.drained() }
            var drained = drain.wait(for: gracePeriod)
            if !drained {
                let running = pool.interruptLeased()
                let until = ContinuousClock.now + Self.interruptWindow
                while !drained, ContinuousClock.now < until {
                    drained = drain.wait(for: .milliseconds(20))
                    if !drained { _ = pool.interruptLeased() }
                }
                logInterrupted(running, drained: drained, reason: "its grace period of \(gracePeriod) passed")
            }
            let ended = DispatchSemaphore(value: 0)
            observation.end { ended.signal() }
            ended.wait()
            if drained { eventLoopUse?.end() }
        }
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

/// Whether a shutting-down pool has drained, waited for with a deadline by a thread or by a task
/// (which does not hold a thread while it waits).
///
/// `@unchecked Sendable`: every property is guarded by `condition`.
final class CRUDDrain: @unchecked Sendable {
    private let condition = NSCondition()
    private var isDrained = false
    private var waiting: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var nextWaiter = 0
    /// Where the tasks' deadlines fire.
    private static let timers = DispatchQueue(label: "CRUD.shutdown.timers")

    /// The pool has drained: every waiter returns `true`.
    func drained() {
        condition.lock()
        isDrained = true
        let resumed = waiting.values
        waiting = [:]
        condition.broadcast()
        condition.unlock()
        for continuation in resumed { continuation.resume(returning: true) }
    }

    /// Blocks the thread until the pool has drained (`true`) or `duration` has passed (`false`).
    func wait(for duration: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: duration.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !isDrained, condition.wait(until: deadline) {}
        return isDrained
    }

    /// Suspends the task until the pool has drained (`true`) or `duration` has passed (`false`).
    func wait(for duration: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            condition.lock()
            guard !isDrained else {
                condition.unlock()
                return continuation.resume(returning: true)
            }
            let id = nextWaiter
            nextWaiter += 1
            waiting[id] = continuation
            condition.unlock()
            Self.timers.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: duration.nanoseconds))) {
                self.condition.lock()
                let timedOut = self.waiting.removeValue(forKey: id)
                self.condition.unlock()
                timedOut?.resume(returning: false)
            }
        }
    }
}

import Foundation

// Shutting a database down: no new call starts, the calls under way finish (for up to a grace
// period), the connections close, the observers end, and the event loop stops unless another
// database uses it. The pool and the observation center each
// report when they are done through a callback, which the async form awaits without holding a
// thread and the synchronous form waits for on its own.

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

    /// Shuts down, suspending the caller until the calls under way have finished or `gracePeriod`
    /// has passed, and the observers have ended.
    /// - Throws: `CRUDSQLExeError` of kind `.shutDown` when called inside one of this database's
    ///   transactions (it would wait for itself), or when calls were still running after the grace
    ///   period (their connections close as they end).
    func shutdown(gracePeriod: Duration) async throws {
        try await reporting {
            try refuseInsideTransaction()
            let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
            pool.shutDown(shutDownError) { continuation.yield(true) }
            let timer = Task {
                try? await Task.sleep(for: gracePeriod)
                continuation.yield(false)
            }
            var drained = false
            for await done in stream {
                drained = done
                break
            }
            timer.cancel()
            continuation.finish()
            await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in observation.end { ended.resume() } }
            if drained { eventLoopUse?.end() }
            try checkDrained(drained, gracePeriod)
        }
    }

    /// The same, blocking the calling thread while it waits.
    /// - Throws: as the async form.
    func shutdown(gracePeriod: Duration) throws {
        try reporting {
            try refuseInsideTransaction()
            let drained = DispatchSemaphore(value: 0)
            pool.shutDown(shutDownError) { drained.signal() }
            let finished = drained.wait(timeout: .now() + gracePeriod.seconds) == .success
            let ended = DispatchSemaphore(value: 0)
            observation.end { ended.signal() }
            ended.wait()
            if finished { eventLoopUse?.end() }
            try checkDrained(finished, gracePeriod)
        }
    }

    private func refuseInsideTransaction() throws {
        guard boundSession() == nil else {
            throw CRUDSQLExeError("shutdown() inside a transaction of \(pool.describe) would wait for that transaction to end: "
                + "call it after the transaction", kind: .shutDown)
        }
    }

    private func checkDrained(_ drained: Bool, _ gracePeriod: Duration) throws {
        guard !drained else { return }
        let running = pool.leasedCount
        guard running > 0 else { return }
        throw CRUDSQLExeError("shutdown(): \(running) connection(s) of \(pool.describe) were still in use after the grace period of "
            + "\(gracePeriod): the calls using them go on, and each connection closes as its call ends; give long transactions "
            + "and open cursors a chance to end first, or a longer grace period", kind: .shutDown)
    }
}

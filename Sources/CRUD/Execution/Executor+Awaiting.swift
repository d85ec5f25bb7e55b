/// Async calls on a driver that executes without blocking (PostgreSQL's, MySQL's): they run in the
/// caller's own task, which suspends while it waits for a connection (or its transaction's,
/// `CRUDSessionGate`) and for the server's answer (`CRUDEventLoop`), so no thread is held for it,
/// and reads the rows from the answer. The awaiting runner comes here (`awaiting`).
///
/// These frames, the session's awaiting forms, the drivers' waits and the async closures they pass
/// each other run on their caller's executor (`nonisolated(nonsending)`), as `perform`'s do: the
/// public call that comes here has left any actor already, and each hop between two nonisolated
/// frames asked the task's preferred executor under its status lock (22 hops in a PostgreSQL
/// lookup, 6,300 of its 35,600 client instructions).
extension CRUDExecutor {
    /// Whether an async read of the current task can run in the task itself: the driver executes
    /// without blocking, and the task does not run on `CRUDThreads`, whose threads are there to
    /// block: a blocking call inline there costs less than a wait on the event loop (4 tasks × 10,000
    /// PostgreSQL lookups: 1.12× raw libpq inline, 2.0× awaited). In a transaction the call takes
    /// the transaction's session, which its body's child tasks share, in turn (`CRUDSessionGate`).
    @inlinable
    var canAwaitServer: Bool {
        awaitsServer && !CRUDThreadMarker.isMarked
    }

    /// Runs `body`, an async caller's read, on a session for `access` in the caller's task: the
    /// boundary of the funnel for such calls, as `perform` is for the others. Cancelling the task,
    /// or the statement timeout, stops the statement (`CRUDCancellation`).
    /// - Throws: what `body` throws; `CancellationError`, or `CRUDSQLExeError` of kind `.timedOut`.
    @usableFromInline
    nonisolated(nonsending) func awaiting<T>(_ access: CRUDAccess,
                                             _ body: nonisolated(nonsending) (CRUDSession<Connection>) async throws -> T) async throws -> T {
        do {
            let cancellation = CRUDCancellation(timeout: statementTimeout(in: CRUDBindings.current))
            return try await withTaskCancellationHandler {
                if let bound = boundSession() {
                    return try await holding(bound) { try await bound.running(cancellation) { try await body(bound) } }
                }
                // Held across the wait for the answer: a synchronous caller in another task must not
                // block a thread waiting for it (`CRUDHold.acrossSuspension`).
                let session = try await leaseAcrossSuspension(access)
                defer { pool.giveBack(session, usedHere: true) }
                return try await session.running(cancellation, reading: access == .read) { try await body(session) }
            } onCancel: {
                cancellation.cancel(.cancelled)
            }
        } catch let error as any CRUDReportableError where !error.isReported {
            throw report(error)
        }
    }

    /// Runs `body` holding `session`, which the callers of a transaction share, in the current
    /// task: it suspends while another caller holds the session.
    nonisolated(nonsending) func holding<T>(_ session: Session, _ body: nonisolated(nonsending) () async throws -> T) async throws -> T {
        await session.gate.acquire()
        defer { session.gate.release() }
        return try await body()
    }

    /// A session for `access` held across the task's suspensions: an idle one at once, else waited
    /// for (or opened) without blocking.
    /// - Throws: as the pool's async `lease`.
    @inline(__always)
    private nonisolated(nonsending) func leaseAcrossSuspension(_ access: CRUDAccess) async throws -> CRUDSession<Connection> {
        if let idle = try pool.leaseNow(access, hold: .acrossSuspension, opening: false) { return typed(idle) }
        return try await leaseWaiting(access)
    }

    private nonisolated(nonsending) func leaseWaiting(_ access: CRUDAccess) async throws -> CRUDSession<Connection> {
        typed(try await pool.lease(access, hold: .acrossSuspension))
    }
}

import Dispatch
import Foundation

/// The cancellation of one call's statements: by its task's cancellation, or by its statement
/// timeout. While the call runs on a session, cancelling interrupts the connection's running
/// statement (the driver's `interrupt()`: SQLite's progress handler, `PQcancel`, `KILL QUERY`), again
/// every `retryInterval` until the call ends, since an interrupt that comes between two
/// statements, or before the server received one, stops nothing. Statements the call starts after
/// the cancellation are refused before they run. The error the interrupted statement throws
/// becomes `CancellationError` or a `CRUDSQLExeError` of kind `.timedOut`.
///
/// A call that runs on its task's own thread (SQLite's, `runsOnCallersThread`) `watchesTask`
/// instead: no cancellation handler is installed for it, whose record would make each of the task's
/// executor hops take the task's status lock (2,200 of a SQLite lookup's 17,000 instructions); its
/// statements stop by themselves once the task is cancelled (`beginCallersWork(bounded:)`), and
/// the checks below look at the task.
///
/// `@unchecked Sendable`: `running`, `reason` and `timer` are guarded by `lock`, which is held
/// while interrupting, so that a call that ends (and gives its session back) waits for an
/// interrupt under way, and no interrupt reaches a session once its call has ended. `watchesTask`
/// is set and read only by the thread that runs the call.
@usableFromInline
final class CRUDCancellation: @unchecked Sendable {
    enum Reason {
        case cancelled
        case timedOut(Duration)
    }

    /// How often an interrupt is repeated while the call has not ended.
    static let retryInterval: DispatchTimeInterval = .milliseconds(20)
    /// Where interrupts run: a few serial queues, a call's chosen by its identity, so that a storm
    /// of cancelled calls uses a few threads however many calls it cancels (a queue per call made a
    /// thread per interrupt waiting for its server), while a slow interrupt holds up only its lane.
    private static let interruptLanes = (0 ..< 2).map { DispatchQueue(label: "CRUD.cancellation.interrupts.\($0)") }

    private let lock = CRUDPlainLock()
    /// The session the call runs on, while it may be interrupted; `nil` once an interrupt did its work.
    private var running: CRUDSessionSlot?
    /// The session the call runs on, until it ends.
    private var session: CRUDSessionSlot?
    private var reason: Reason?
    /// The statement timeout's (`CRUDTimers`): firing only marks the call and hands the interrupt on.
    private var timer: CRUDTimer?
    /// The statement timeout, started when the call begins on a session.
    private let timeout: Duration?
    /// Whether the call runs in its task, on the task's thread, with no cancellation handler: the
    /// task's cancellation is looked at where a handler would have recorded it.
    var watchesTask = false

    @usableFromInline
    init(timeout: Duration?) {
        self.timeout = timeout
    }

    /// The call starts running on `session`: its timeout starts.
    /// - Throws: the cancellation's error, when it was cancelled before it started.
    func begin(on session: CRUDSessionSlot) throws {
        try lock.withLock {
            noteTaskCancellation()
            if let reason { throw Self.error(for: reason, replacing: nil) }
            running = session
            self.session = session
            if let timeout {
                timer = CRUDTimers.after(timeout) { [weak self] in self?.cancel(.timedOut(timeout)) }
            }
        }
    }

    /// The call has ended: nothing is interrupted any more, and the timeout is off. Called by the
    /// thread that ran the call, which still holds the session.
    func end() {
        lock.withLock {
            if reason != nil { settle() }
            running = nil
            session = nil
            timer?.cancel()
            timer = nil
        }
    }

    /// Cancels the call for `reason`, unless it was already: interrupts its statement if one runs.
    /// The interrupts run on an interrupt lane, off the cancelling thread and the timers' queue,
    /// since one may wait for a round trip to the server (or, for MySQL, a new connection).
    func cancel(_ reason: Reason) {
        let first = lock.withLock {
            guard self.reason == nil else { return false }
            self.reason = reason
            return true
        }
        guard first else { return }
        let lane = Self.interruptLanes[Int(UInt(bitPattern: ObjectIdentifier(self).hashValue) % UInt(Self.interruptLanes.count))]
        lane.async { self.interruptRunning(on: lane) }
    }

    /// Interrupts the running session's statement, and comes back to do it again until the call
    /// ends.
    private func interruptRunning(on queue: DispatchQueue) {
        lock.withLock {
            guard let running else { return }
            running.interrupt()
            queue.asyncAfter(deadline: .now() + Self.retryInterval) { [weak self] in self?.interruptRunning(on: queue) }
        }
    }

    /// Called holding `lock`, on the thread running the call, once it was interrupted (or may have
    /// been): no interrupt is sent any more, and the connection runs what comes next as usual.
    private func settle() {
        running = nil
        session?.interruptEnded()
    }

    /// Before a statement of the call: refuses it once the call is cancelled.
    /// - Throws: `CancellationError`, or `CRUDSQLExeError` of kind `.timedOut`.
    @usableFromInline
    func check() throws {
        let stopped: Reason? = lock.withLock {
            noteTaskCancellation()
            return reason
        }
        if let stopped { throw Self.error(for: stopped, replacing: nil) }
    }

    /// Called holding `lock`, on the thread running the call: a call that `watchesTask` is
    /// cancelled once its task is (the running statement stops by itself).
    private func noteTaskCancellation() {
        if watchesTask, reason == nil, Task.isCancelled { reason = .cancelled }
    }

    /// What a statement of the call that failed with `error` throws: the cancellation's error if
    /// the call was cancelled (the interrupt made it fail), else `error`.
    @usableFromInline
    func error(replacing error: any Error) -> any Error {
        let reason: Reason? = lock.withLock {
            noteTaskCancellation()
            // The interrupt did its work: what the call runs next (a rollback) runs uninterrupted.
            if self.reason != nil { settle() }
            return self.reason
        }
        guard let reason else { return error }
        return Self.error(for: reason, replacing: error)
    }

    private static func error(for reason: Reason, replacing error: (any Error)?) -> any Error {
        switch reason {
        case .cancelled:
            return CancellationError()
        case let .timedOut(timeout):
            let failed = error as? CRUDSQLExeError
            return CRUDSQLExeError("the statement ran past its timeout of \(CRUDLogging.milliseconds(timeout)) ms and was cancelled: "
                + "nothing of it is committed (a transaction it was in is rolled back); raise the timeout "
                + "(the configuration's statementTimeout, or db.withStatementTimeout for a task) or make the statement faster",
                sql: failed?.sql, code: failed?.code, databaseMessage: failed?.databaseMessage, kind: .timedOut)
        }
    }
}

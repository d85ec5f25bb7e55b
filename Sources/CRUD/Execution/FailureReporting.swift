import Foundation

/// The `didFail` handler of one database. `@unchecked Sendable`: `handler` is guarded by `lock`.
final class CRUDFailureHandler: @unchecked Sendable {
    private var handler: (@Sendable (any Error) -> Void)?
    private let lock = NSLock()

    var current: (@Sendable (any Error) -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }
}

extension CRUDExecutor {
    /// The boundary of the executor's entries: a library error leaving one is logged and handed to
    /// `didFail`, then thrown marked as reported, so the entries it leaves afterwards (a transaction
    /// around the statement) pass it on as it is.
    @inlinable
    func reporting<T>(_ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as any CRUDReportableError where !error.isReported {
            throw report(error)
        }
    }

    /// Builds a plan that runs no statement yet (a join, a prepared query): the boundary for the
    /// mistakes found while building it, which are reported as a statement's are.
    @usableFromInline
    func building<T>(_ body: () throws -> T) rethrows -> T {
        try reporting(body)
    }

    /// The same for an async operation.
    @inlinable
    func reporting<T>(_ body: () async throws -> T) async rethrows -> T {
        do {
            return try await body()
        } catch let error as any CRUDReportableError where !error.isReported {
            throw report(error)
        }
    }

    /// Logs `error` and hands it to `didFail`, and returns it marked as reported: the one place
    /// where the library's errors are logged, so each is logged once, as it leaves the first public
    /// operation it passes through.
    @usableFromInline
    func report(_ error: any CRUDReportableError) -> any Error {
        var marked = interruptedByShutdown(error)
        marked.isReported = true
        return report(unflagged: marked)
    }

    /// Logs `error` and hands it to `didFail` as it is: `report(_:)` after marking it, and the one
    /// thrower of a library error that cannot be marked (an enum, as `CRUDMigrationError`).
    @usableFromInline
    func report(unflagged error: any Error) -> any Error {
        CRUDLogging.logReported(String(describing: error))
        instruments?.thrown(error)
        failures.current?(error)
        return error
    }
}

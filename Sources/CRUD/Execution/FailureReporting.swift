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
    /// Runs a public operation: a library error it throws is handed to `didFail` once, then thrown.
    @inlinable
    func reporting<T>(_ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as any CRUDReportableError where !error.isReported {
            throw report(error)
        }
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

    /// Hands `error` to `didFail` and returns it marked as reported.
    @usableFromInline
    func report(_ error: any CRUDReportableError) -> any Error {
        var marked = error
        marked.isReported = true
        failures.current?(marked)
        return marked
    }
}

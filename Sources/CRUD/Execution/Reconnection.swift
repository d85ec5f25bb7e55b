import Foundation

/// Opening a connection to a server that cannot be reached yet (starting, restarting, a network
/// that is not up): it is tried again, 50 ms after the first failure and then twice as long each
/// time, up to 2 s apart, until the window given has passed. Only unreachable servers are tried
/// again (`CRUDSQLExeError.Kind.connectionLost`); a wrong password fails at once. Drivers use it for
/// the connection their configuration's initializer opens; the executor, for the others.
@_spi(CRUDDriver) public enum CRUDReconnection {
    static let firstPause = Duration.milliseconds(50)
    static let longestPause = Duration.seconds(2)

    /// What `open` opens, trying for up to `window`; runs on the thread that needs the connection,
    /// which waits between attempts (a caller's own, or the pool's connecting queue).
    /// - Throws: the last attempt's `CRUDSQLExeError`, saying how long it tried; what else `open` throws.
    public static func open<Connection>(trying window: Duration, _ open: () throws -> Connection) throws -> Connection {
        var attempts = Attempts(window: window)
        while true {
            do {
                return try open()
            } catch let error as CRUDSQLExeError {
                Thread.sleep(forTimeInterval: try attempts.pause(after: error).seconds)
            }
        }
    }

    /// `open(trying:_:)` for a task: `open` waits for the server without a thread, and so do the
    /// pauses between attempts.
    /// - Throws: as `open(trying:_:)`; `CancellationError` when the task is cancelled while it pauses.
    static func open<Connection>(trying window: Duration, _ open: () async throws -> Connection) async throws -> Connection {
        var attempts = Attempts(window: window)
        while true {
            do {
                return try await open()
            } catch let error as CRUDSQLExeError {
                try await Task.sleep(for: try attempts.pause(after: error))
            }
        }
    }

    /// The attempts of one `open`: when the window ends, and the next pause.
    private struct Attempts {
        let window: Duration
        let deadline: ContinuousClock.Instant
        var pause = CRUDReconnection.firstPause
        var count = 1

        init(window: Duration) {
            self.window = window
            deadline = .now + window
        }

        /// How long to pause before the next attempt, after `error`.
        /// - Throws: `error` when it is no outage or the window has passed (then saying how long it tried).
        mutating func pause(after error: CRUDSQLExeError) throws -> Duration {
            guard error.kind == .connectionLost, window > .zero else { throw error }
            let left = deadline - .now
            guard left > .zero else {
                throw CRUDSQLExeError(error.msg + " (tried \(count) times in \(window))", sql: error.sql, code: error.code,
                                      databaseMessage: error.databaseMessage, kind: error.kind)
            }
            CRUDLogging.log(.warning, "\(error.msg); trying again in \(CRUDLogging.milliseconds(min(pause, left))) ms")
            defer {
                pause = min(pause * 2, CRUDReconnection.longestPause)
                count += 1
            }
            return min(pause, left)
        }
    }
}

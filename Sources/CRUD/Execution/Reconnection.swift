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
    /// which waits between attempts (a caller's own, or the pool's connecting queue for tasks).
    /// - Throws: the last attempt's `CRUDSQLExeError`, saying how long it tried; what else `open` throws.
    public static func open<Connection>(trying window: Duration, _ open: () throws -> Connection) throws -> Connection {
        let clock = ContinuousClock()
        let deadline = clock.now + window
        var pause = firstPause
        var attempts = 1
        while true {
            do {
                return try open()
            } catch let error as CRUDSQLExeError where error.kind == .connectionLost && window > .zero {
                let left = deadline - clock.now
                guard left > .zero else {
                    throw CRUDSQLExeError(error.msg + " (tried \(attempts) times in \(window))", sql: error.sql, code: error.code,
                                          databaseMessage: error.databaseMessage, kind: error.kind)
                }
                CRUDLogging.log(.warning, "\(error.msg); trying again in \(CRUDLogging.milliseconds(min(pause, left))) ms")
                Thread.sleep(forTimeInterval: min(pause, left).seconds)
                pause = min(pause * 2, longestPause)
                attempts += 1
            }
        }
    }
}

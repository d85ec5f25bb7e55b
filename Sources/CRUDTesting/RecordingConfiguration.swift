@_spi(CRUDDriver) import CRUD

/// A database configuration for tests that records statements instead of running them: give it to
/// `Database(configuration:)`, run the chains under test, and read `connection.executions`.
///
/// `@unchecked Sendable`: the executor's one session (`.single`, with its lock) is the only path to
/// `connection` besides the test, which uses it from its own thread, between calls.
public final class RecordingConfiguration: DatabaseConfigurationProtocol, @unchecked Sendable {
    /// The one connection every call of the database runs on.
    public let connection: RecordingConnection
    @_spi(CRUDDriver) public let executor: CRUDExecutor<RecordingConnection>

    /// A configuration whose connection speaks `dialect` (`RecordingDialect` by default).
    public init(dialect: any CRUDDialect = RecordingDialect()) {
        let connection = RecordingConnection(dialect: dialect)
        self.connection = connection
        // Cannot throw: `.single` opens no connection besides `first`.
        executor = try! CRUDExecutor(layout: .single, first: connection, timeout: .seconds(1), describe: "recording") { _ in
            RecordingConnection(dialect: dialect)
        }
    }
}

#if ServiceLifecycle
@_spi(CRUDServiceLifecycle) import CRUD
import ServiceLifecycle

/// A database as a service of a swift-service-lifecycle `ServiceGroup`: it runs until the group
/// shuts down gracefully (on SIGTERM, say), then shuts the database down, letting the calls under
/// way finish for up to `gracePeriod` and interrupting those still running then
/// (`Database.shutdown(gracePeriod:)`).
///
///     let db = Database(configuration: try PostgresDatabaseConfiguration(url: url))
///     let group = ServiceGroup(services: [DatabaseService(db), server], gracefulShutdownSignals: [.sigterm], logger: logger)
///     try await group.run()
///
/// A group shuts its services down in the reverse of their order, so list the database before the
/// services that use it: they stop taking requests first, and the database outlives their last
/// call. When the group is cancelled instead (or its `maximumGracefulShutdownDuration` passes
/// before the database's turn), the database shuts down at once, interrupting what still runs,
/// and says so in its log. Either way the service returns normally, so the group ends cleanly.
public struct DatabaseService<Configuration: DatabaseConfigurationProtocol>: Service {
    /// The database the service shuts down.
    public let database: Database<Configuration>
    /// How long the calls under way may still run once the group shuts down.
    public let gracePeriod: Duration

    /// The service of `database`, whose calls under way get `gracePeriod` to finish at shutdown.
    public init(_ database: Database<Configuration>, gracePeriod: Duration = .seconds(10)) {
        self.database = database
        self.gracePeriod = gracePeriod
    }

    /// Waits for the group's graceful shutdown, then shuts the database down.
    /// - Throws: nothing in practice: `Database.shutdown` throws only inside one of the database's
    ///   transactions, where a service never runs.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            return try await database.shutdown(interruptingNow: "the service group was cancelled (its "
                + "maximumGracefulShutdownDuration passed, say) before DatabaseService's grace period of \(gracePeriod) began")
        }
        try await database.shutdown(gracePeriod: gracePeriod)
    }
}
#endif

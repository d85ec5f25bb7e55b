import CRUD
import CRUDPostgres
import CRUDServiceLifecycle
import CRUDSQLite
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

// Configuration from the environment: DATABASE_URL (postgres://…; SQLite at DATABASE_PATH, or
// todos.sqlite, without it), PORT (8080), LOG_LEVEL (info).
let environment = ProcessInfo.processInfo.environment
let logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = logLevel
    return handler
}
let logger = Logger(label: "todos")

// SQLite's mutexes spin briefly before they put a thread to sleep, which concurrent requests' reads
// of one file otherwise do on Swift's few threads: a setting of the whole process, so made first,
// before anything opens a database.
try SQLiteProcess.useSpinningMutexes()

// Metrics before the database opens: it keeps the factory bootstrapped then. Prometheus names
// take no dots. (Tracing would be bootstrapped here too, with swift-otel's tracer:
// `InstrumentationSystem.bootstrap(tracer)`; Hummingbird's TracingMiddleware and CRUD's spans
// then report to it.)
let registry = PrometheusCollectorRegistry()
var metricsFactory = PrometheusMetricsFactory(registry: registry)
metricsFactory.nameAndLabelSanitizer = { name, labels in
    (name.replacingOccurrences(of: ".", with: "_"), labels.map { ($0.0.replacingOccurrences(of: ".", with: "_"), $0.1) })
}
MetricsSystem.bootstrap(metricsFactory)

let port = environment["PORT"].flatMap(Int.init) ?? 8080
// The URL's scheme picks the driver: postgres://… or sqlite:path. A PostgreSQL server that is not
// up yet: the pool keeps trying for 30 s, and /health says when it answers.
let url = environment["DATABASE_URL"] ?? "sqlite:" + (environment["DATABASE_PATH"] ?? "todos.sqlite")
let pool = PostgresPoolOptions(maximumConnections: 16, connectsOnFirstUse: true, connectRetry: .seconds(30),
                               statementTimeout: .seconds(10))
try await serve(AnyDatabase(url: url, drivers: [.sqlite(statementTimeout: .seconds(10)), .postgres(pool: pool)]))

/// Migrates `db`, then serves until SIGTERM or SIGINT: the service group stops the HTTP server
/// first (requests under way finish), then shuts the database down.
func serve(_ db: AnyDatabase) async throws {
    try await migrate(db)
    let router = Router()
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: TracingMiddleware())
    router.add(middleware: DatabaseLoggerMiddleware())
    router.add(middleware: DatabaseErrorMiddleware())
    TodosRoutes(db: db).add(to: router)
    router.get("metrics") { _, _ in registry.emitToString() }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
    var configuration = ServiceGroupConfiguration(services: [DatabaseService(db), app], gracefulShutdownSignals: [.sigterm, .sigint],
                                                  logger: logger)
    // A client that stops sending in the middle of a request would hold the graceful shutdown open
    // for as long as its connection lives: past this bound the group cancels what still runs.
    configuration.maximumGracefulShutdownDuration = .seconds(10)
    try await ServiceGroup(configuration: configuration).run()
}

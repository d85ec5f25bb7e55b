import CRUD
import CRUDSQLite
import Foundation
import Logging
import Testing

/// A swift-log handler that hands every message to a collector.
struct CollectingLogHandler: LogHandler {
    let collector: Collector<String>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// With `eventMetadata`, each line ends with the metadata of the call (`crud.duration_ms=…`).
    var eventMetadata = false

    func log(event: LogEvent) {
        let context = metadata.isEmpty ? "" : " [" + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "]"
        let fields = eventMetadata ? (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined() : ""
        collector.append("\(event.level)\(context): \(event.message)\(fields)")
    }
}

/// Logging is global, so these tests run one at a time and look only for their own messages.
@Suite("logging", .serialized)
struct LoggingTests {
    init() throws {
        _ = try Backend.sqlite.open()
    }

    @Test("queries and errors go to their own destinations; custom, file and swift-log destinations; flush")
    func destinations() throws {
        let queries = Collector<String>()
        let errors = Collector<String>()
        let bridged = Collector<String>()
        let file = Backend.temporaryFile("log")
        let logger = Logger(label: "crud-test") { _ in CollectingLogHandler(collector: bridged) }
        CRUDLogging.queryLogDestinations = [.custom { queries.append($0.msg) }, .file(file)]
        CRUDLogging.errorLogDestinations = [.custom { errors.append("\($0.type): \($0.msg)") }, .logger(logger)]
        defer {
            CRUDLogging.queryLogDestinations = []
            CRUDLogging.errorLogDestinations = []
        }

        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        try db.create(Pupil.self, policy: .shallow)
        _ = try db.table(Pupil.self).where(\Pupil.name == "logged-marker").count()
        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT * FROM \"no-such-table-marker\"") }
        CRUDLogging.log(.info, "info-marker")
        CRUDLogging.log(.warning, "warning-marker")
        CRUDLogging.flush()

        #expect(queries.items.contains { $0.contains("FROM \"Pupil\" AS t0 WHERE t0.\"name\" = ?1") })
        #expect(!queries.items.contains { $0.contains("info-marker") })
        #expect(errors.items.contains { $0.hasPrefix("error: ") && $0.contains("no such table: no-such-table-marker") })
        #expect(errors.items.contains("info: info-marker"))
        #expect(errors.items.contains("warning: warning-marker"))
        #expect(bridged.items.contains("info: info-marker"))
        #expect(bridged.items.contains("warning: warning-marker"))
        // The error went to the caller, who decides what it means: swift-log gets it at debug.
        #expect(bridged.items.contains { $0.hasPrefix("debug: ") && $0.contains("no-such-table-marker") }, "\(bridged.items)")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.contains("[query] SELECT COUNT(*) FROM (SELECT 1 FROM \"Pupil\" AS t0 WHERE t0.\"name\" = ?1) AS crud_count"))
        #expect(!written.contains("info-marker"))
    }

    @Test("a task's logger gets every line the library writes while serving it, with the task's metadata, sync and async; others do not")
    func taskLogger() async throws {
        let lines = Collector<String>()
        let bridged = Collector<String>()
        var logger = Logger(label: "request") { _ in CollectingLogHandler(collector: lines) }
        logger[metadataKey: "request-id"] = "r-42"
        logger.logLevel = .debug
        var quiet = logger
        quiet.logLevel = .info
        // The global query log is off: the task's logger gets the statements anyway. A `.logger`
        // destination would repeat its lines: it is left out for the task's.
        CRUDLogging.queryLogDestinations = []
        CRUDLogging.errorLogDestinations = [.logger(Logger(label: "global") { _ in CollectingLogHandler(collector: bridged) })]
        defer { CRUDLogging.errorLogDestinations = [] }
        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        try await db.create(Pupil.self, policy: .shallow)

        try await CRUDLogging.withLogger(logger) {
            // Async calls run on the library's threads: the logger goes along.
            _ = try await db.table(Pupil.self).count()
            try await db.sql("SELECT 1 AS async_task_marker")
            await #expect(throws: CRUDSQLExeError.self) { try await db.sql("SELECT * FROM \"no-such-table-task-marker\"") }
        }
        try Self.synchronously(db, logger)
        try await CRUDLogging.withLogger(quiet) {
            try await db.sql("SELECT 1 AS quiet_marker")
        }
        try await db.sql("SELECT 1 AS outside_marker")
        CRUDLogging.flush()

        let logged = lines.items
        #expect(logged.contains { $0.hasPrefix("debug [request-id=r-42]: ") && $0.contains("SELECT COUNT(*) FROM") }, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("debug [request-id=r-42]: ") && $0.contains("async_task_marker") }, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("debug [request-id=r-42]: ") && $0.contains("sync_task_marker") }, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("debug [request-id=r-42]: ") && $0.contains("no-such-table-task-marker") }, "\(logged)")
        #expect(!logged.contains { $0.contains("quiet_marker") }, "a logger at info gets no statements")
        #expect(!logged.contains { $0.contains("outside_marker") }, "nothing after the task's logger ended")
        #expect(!bridged.items.contains { $0.contains("no-such-table-task-marker") }, "the global swift-log destination does not repeat it")
    }

    static func synchronously(_ db: Database<SQLiteDatabaseConfiguration>, _ logger: Logger) throws {
        try CRUDLogging.withLogger(logger) {
            try db.sql("SELECT 1 AS sync_task_marker")
        }
    }

    @Test("by default statements go to swift-log at debug and are not made below it; thrown errors at the level the app sets, warnings at warning")
    func swiftLogLevels() throws {
        let lines = Collector<String>()
        var logger = Logger(label: "app") { _ in CollectingLogHandler(collector: lines) }
        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        defer {
            CRUDLogging.queryLogDestinations = []
            CRUDLogging.errorLogDestinations = []
            CRUDLogging.reportedErrorLevel = .debug
        }
        // At info (swift-log's default), the query log is off: no statement text is made.
        logger.logLevel = .info
        CRUDLogging.queryLogDestinations = [.logger(logger)]
        CRUDLogging.errorLogDestinations = [.logger(logger)]
        try db.sql("SELECT 1 AS info_level_marker")
        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT * FROM \"no-such-table-info-marker\"") }
        CRUDLogging.reportedErrorLevel = .error
        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT * FROM \"no-such-table-error-marker\"") }
        // At debug, the statements and the thrown errors (back at debug) come too.
        logger.logLevel = .debug
        CRUDLogging.queryLogDestinations = [.logger(logger)]
        CRUDLogging.errorLogDestinations = [.logger(logger)]
        CRUDLogging.reportedErrorLevel = .debug
        try db.sql("SELECT 1 AS debug_level_marker")
        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT * FROM \"no-such-table-debug-marker\"") }
        CRUDLogging.flush()

        let logged = lines.items
        #expect(!logged.contains { $0.contains("info_level_marker") }, "\(logged)")
        #expect(!logged.contains { $0.contains("no-such-table-info-marker") }, "a thrown error is below info by default: \(logged)")
        #expect(logged.contains { $0.hasPrefix("error: ") && $0.contains("no-such-table-error-marker") }, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("debug: ") && $0.contains("debug_level_marker") }, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("debug: ") && $0.contains("no-such-table-debug-marker") }, "\(logged)")
    }

    @Test("each logged statement carries its duration; a statement slower than the threshold is logged at warning, with the query log off")
    func durationsAndSlowStatements() throws {
        let queries = Collector<CRUDLogEvent>()
        let warnings = Collector<String>()
        let bridged = Collector<String>()
        let metadata = Collector<String>()
        let logger = Logger(label: "durations") { _ in CollectingLogHandler(collector: metadata, eventMetadata: true) }
        CRUDLogging.queryLogDestinations = [.custom { queries.append($0) }, .logger(logger)]
        // Other suites' warnings come meanwhile (a connection tried again, their own slow statements
        // under the global threshold): only this test's statements count.
        CRUDLogging.errorLogDestinations = [.custom { if $0.type == .warning, $0.msg.contains("_marker") { warnings.append($0.msg) } },
                                            .logger(Logger(label: "warnings") { _ in CollectingLogHandler(collector: bridged) })]
        defer {
            CRUDLogging.queryLogDestinations = []
            CRUDLogging.errorLogDestinations = []
            CRUDLogging.slowStatementThreshold = nil
        }
        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        // A statement that takes SQLite a while: counting through a recursive CTE.
        let slow = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000000) SELECT count(*) AS slow_marker FROM n"
        try db.sql("SELECT 1 AS timed_marker")
        try db.sql(slow)
        CRUDLogging.flush()
        let timed = try #require(queries.items.first { $0.msg.contains("timed_marker") })
        let counted = try #require(queries.items.first { $0.msg.contains("slow_marker") })
        #expect(timed.duration != nil && counted.duration! > timed.duration!, "\(String(describing: timed.duration)) \(String(describing: counted.duration))")
        #expect(metadata.items.contains { $0.contains("slow_marker") && $0.contains("crud.duration_ms=") }, "\(metadata.items)")
        #expect(warnings.items.isEmpty, "no threshold, no warning")

        // A threshold far above the fast statement and well below the slow one (a loaded machine
        // varies their times), with the query log off: only the slow one warns.
        CRUDLogging.queryLogDestinations = []
        CRUDLogging.slowStatementThreshold = counted.duration! / 4
        try db.sql("SELECT 1 AS fast_marker")
        try db.sql(slow)
        CRUDLogging.flush()
        #expect(warnings.items.count == 1 && warnings.items[0].contains("slow_marker") && warnings.items[0].contains("slow statement threshold"),
                "\(warnings.items)")
        #expect(bridged.items.contains { $0.hasPrefix("warning: ") && $0.contains("slow_marker") }, "\(bridged.items)")
        #expect(!queries.items.contains { $0.msg.contains("fast_marker") }, "the query log stayed off")
    }

    @Test("a shutdown that interrupts a call past its grace period says so at warning, with the grace period it had")
    func shutdownInterruptionIsLogged() async throws {
        let path = Backend.temporaryFile("sqlite")
        let warnings = Collector<String>()
        CRUDLogging.errorLogDestinations = [.custom { if $0.type == .warning, $0.msg.contains(path) { warnings.append($0.msg) } }]
        defer { CRUDLogging.errorLogDestinations = [] }
        let db = Database(configuration: try SQLiteDatabaseConfiguration(path))
        let long = CancellationTests.startTask { try await db.sql(CancellationTests.longStatement(.sqlite), ConnectionNumber.self) }
        try await Task.sleep(for: CancellationTests.running)
        try await db.shutdown(gracePeriod: .milliseconds(250))
        _ = try? await long.value
        CRUDLogging.flush()
        #expect(warnings.items.count == 1, "\(warnings.items)")
        #expect(warnings.items.first?.contains("1 call(s)") == true && warnings.items.first?.contains("grace period of 0.25 seconds passed") == true,
                "\(warnings.items)")
    }

    @Test("no destinations means nothing is written")
    func silence() throws {
        let collector = Collector<String>()
        CRUDLogging.queryLogDestinations = [.none]
        CRUDLogging.errorLogDestinations = []
        CRUDLogging.log(.error, "dropped")
        CRUDLogging.flush()
        CRUDLogging.queryLogDestinations = [.custom { collector.append($0.msg) }]
        CRUDLogging.log(.query, "kept")
        CRUDLogging.flush()
        CRUDLogging.queryLogDestinations = []
        // Other suites' statements may reach the collector meanwhile (the destinations are global):
        // only this test's own events are looked at.
        #expect(collector.items.contains("kept") && !collector.items.contains("dropped"), "\(collector.items)")
    }

    @Test("every event logged before a normal exit is written: file and console, return from main and exit(0)",
          arguments: ["file", "console"], ["return", "exit"])
    func flushedAtExit(destination: String, ending: String) async throws {
        try await offCooperativePool {
            let probe = try BuiltProgram("crud-test-probe")
            for run in 1 ... 5 {
                let file = Backend.temporaryFile("log")
                let (status, output) = try probe.run(["log", destination, destination == "file" ? file : "-", ending])
                #expect(status == 0)
                let written = destination == "file" ? ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "") : output
                let lines = written.split(separator: "\n").filter { $0.contains("probe event") }
                #expect(lines.count == 6, "run \(run): \(lines.count) of 6 events written")
                #expect(lines.enumerated().allSatisfy { $0.element.hasSuffix("] [info] probe event \($0.offset + 1)") },
                        "run \(run): events in the order they were logged:\n\(written)")
            }
        }
    }
}

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

    func log(event: LogEvent) {
        collector.append("\(event.level): \(event.message)")
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
        #expect(bridged.items.contains { $0.hasPrefix("error: ") && $0.contains("no-such-table-marker") })
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.contains("[query] SELECT COUNT(*) FROM (SELECT 1 FROM \"Pupil\" AS t0 WHERE t0.\"name\" = ?1) AS crud_count"))
        #expect(!written.contains("info-marker"))
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

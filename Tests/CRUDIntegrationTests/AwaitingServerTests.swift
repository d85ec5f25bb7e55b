@_spi(CRUDDriver) import CRUD
import CRUDPostgres
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// PostgreSQL's async reads and single-statement writes wait for the server in the calling task, on
/// the library's event loop, instead of blocking a thread of a connection's queue: the threads stay
/// few under any number of tasks, and what the funnel does for every statement (spans, errors, a
/// lost connection) holds.
@Suite("server calls awaited without a thread", .enabled(if: !PostgresTestServer.isSkipped, "CRUD_SKIP_POSTGRES=1"))
struct AwaitingServerTests {
    @Test("64 tasks at once, reading (select, count, first, a prepared lookup) or inserting and counting: the library adds at most one thread per core and the event loop's",
          .timeLimit(.minutes(2)), arguments: ["reads", "writes"])
    func threadsStayBounded(_ load: String) async throws {
        // In a process of its own, which counts its threads every 2 ms while the tasks run.
        let (_, arguments) = try Backend.postgres.openForProbe()
        let probe = try BuiltProgram("crud-test-probe")
        let (status, output) = try await onThread { try probe.run(["threads"] + arguments + ["load=\(load)"]) }
        #expect(status == 0, "\(output)")
        let counts = output.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(counts.count >= 2, "\(output)")
        let added = counts[1] - counts[0]
        #expect(added <= ProcessInfo.processInfo.activeProcessorCount + 1, "\(output)")
    }

    @Test("an awaited read is one span that lasts as long as the server worked, and a failing one is reported once with the server's error")
    func spansAndErrors() async throws {
        let tracer = InMemoryTracer()
        let configuration = try withTracer(tracer) { try PostgresTestServer.shared.get().freshConfiguration() }
        let db = Database(configuration: configuration)
        let failures = Collector<String>()
        db.didFail = { failures.append("\($0)") }
        try await db.sql(#"CREATE VIEW "ConnectionNumber" AS SELECT 7 AS value FROM pg_sleep(0.2)"#)

        tracer.clearAll()
        #expect(try await db.table(ConnectionNumber.self).first()?.value == 7)
        let spans = tracer.finishedSpans.filter { $0.operationName == "SELECT" }
        try #require(spans.count == 1, "\(tracer.finishedSpans.map(\.operationName))")
        let lasted = spans[0].endInstant.nanosecondsSinceEpoch - spans[0].startInstant.nanosecondsSinceEpoch
        #expect(lasted >= 200_000_000, "the span covers the server's 200 ms: \(lasted) ns")

        tracer.clearAll()
        let error = await #expect(throws: CRUDSQLExeError.self) { try await db.table(Course.self).count() }
        #expect(error?.code == "42P01" && error?.sql?.contains("\"Course\"") == true, "\(String(describing: error))")
        #expect(failures.items.count == 1 && failures.items.first?.contains("42P01") == true, "\(failures.items)")
        #expect(tracer.finishedSpans.filter { $0.operationName == "SELECT" }.map { $0.status?.code } == [.error])
        try await db.shutdown()
    }

    @Test("a connection lost while a read waits fails that read with .connectionLost, and the next read reconnects")
    func lostWhileWaiting() async throws {
        var parameters = try PostgresTestServer.shared.get().freshParameters()
        let name = "crud_lost_" + UUID().uuidString.prefix(8).lowercased()
        parameters["application_name"] = name
        let db = Database(configuration: try PostgresDatabaseConfiguration(parameters: parameters, pool: .init(maximumConnections: 1)))
        let admin = Database(configuration: try PostgresDatabaseConfiguration(parameters: try PostgresTestServer.shared.get().freshParameters()))
        try await db.sql(#"CREATE VIEW "ConnectionNumber" AS SELECT 7 AS value FROM pg_sleep(10)"#)

        let read = Task { try await db.table(ConnectionNumber.self).count() }
        // Ended by the server once it runs: the read waits for its answer meanwhile.
        var terminated = 0
        for _ in 0 ..< 100 where terminated == 0 {
            try await Task.sleep(for: .milliseconds(50))
            terminated = try await admin.sql("""
                SELECT count(pg_terminate_backend(pid))::bigint AS value FROM pg_stat_activity
                WHERE application_name = '\(name)' AND state = 'active' AND query LIKE '%ConnectionNumber%'
                """, ConnectionNumber.self)[0].value
        }
        #expect(terminated == 1)
        let error = await #expect(throws: CRUDSQLExeError.self) { try await read.value }
        #expect(error?.kind == .connectionLost, "\(String(describing: error))")
        // The pool's one connection reconnects for the next call.
        try await db.sql(#"CREATE OR REPLACE VIEW "ConnectionNumber" AS SELECT 7 AS value"#)
        #expect(try await db.table(ConnectionNumber.self).first()?.value == 7)
        try await db.shutdown()
        try await admin.shutdown()
    }
}

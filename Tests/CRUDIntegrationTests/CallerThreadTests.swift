import CRUD
import CRUDSQLite
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// SQLite's async calls run on the calling task's own thread when a connection is free, instead of
/// hopping to the connection's queue and back: a read that runs past its budget there stops and runs
/// again off that thread, and a thread that has run such calls for a while yields to other tasks.
@Suite("SQLite calls on the caller's thread")
struct CallerThreadTests {
    static let rows = 20_000

    /// Fills `Course` with `rows` rows, written by SQLite itself.
    static func fill<C: DatabaseConfigurationProtocol>(_ db: Database<C>) async throws {
        try await db.create(Course.self)
        try await db.sql("""
            INSERT INTO "Course" ("id", "title")
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rows)) SELECT x, 'course ' || x FROM n
            """)
    }

    @Test("a read past its budget stops on the caller's thread and runs again off it, with the same result; short reads and writes run once")
    func longReadMovesOff() async throws {
        let tracer = InMemoryTracer()
        let configuration = try withTracer(tracer) { try Backend.sqliteConfiguration(busyTimeout: .seconds(5)) }
        let db = Database(configuration: configuration)
        try await Self.fill(db)
        let withSeven = (1 ... Self.rows).filter { String($0).contains("7") }.count

        // A scan of every row: some ten virtual-machine steps a row, past the budget of 50,000.
        tracer.clearAll()
        let counted = try await db.table(Course.self).where(\Course.title %=% "7").count()
        #expect(counted == withSeven)
        let scans = tracer.finishedSpans.filter { $0.operationName == "SELECT" }
        #expect(scans.count == 2, "the scan stopped once and ran again: \(scans.map(\.status))")
        #expect(scans.first?.status?.code == .error, "the first run was stopped")
        #expect(scans.first?.errors.first.map { "\($0.error)" }?.contains("to run again on the connection's own") == true,
                "the stopped run's span says why: \(String(describing: scans.first?.errors))")
        #expect(scans.last?.status == nil, "the second ran to its end")

        // A point lookup stays well inside the budget: one statement.
        tracer.clearAll()
        #expect(try await db.table(Course.self).where(\Course.id == 7).first() == Course(id: 7, title: "course 7"))
        #expect(tracer.finishedSpans.filter { $0.operationName == "SELECT" }.count == 1)

        // A write is never run twice, however long: SQLite's one writer is all it can hold.
        tracer.clearAll()
        try await db.table(Course.self).where(\Course.id > 0).update(Course(id: 0, title: "renamed"), setKeys: \.title)
        #expect(tracer.finishedSpans.filter { $0.operationName == "UPDATE" }.count == 1)
        #expect(try await db.table(Course.self).where(\Course.title == "renamed").count() == Self.rows)
        try await db.shutdown()
    }

    @Test("64 tasks writing and reading at once: the library adds at most one thread per core and the writer's", .timeLimit(.minutes(2)))
    func threadsStayBounded() async throws {
        // The probe counts its threads every 2 ms while the tasks run.
        let (status, output) = try await BuiltProgram.runThreadsProbe(.sqlite)
        #expect(status == 0, "\(output)")
        let counts = output.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(counts.count >= 2, "\(output)")
        let added = counts[1] - counts[0]
        #expect(added <= ProcessInfo.processInfo.activeProcessorCount + 1, "\(output)")
    }

    @Test("tasks polling a count in a loop leave threads to the task whose writes they wait for", .timeLimit(.minutes(2)))
    func pollingLoopsLeaveThreads() async throws {
        // More pollers than Swift's cooperative pool has threads: calls that never suspend would keep
        // every thread, and the writer would never run.
        let pollers = 2 * ProcessInfo.processInfo.activeProcessorCount
        let db = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(5), maxReaders: pollers))
        try await db.create(Course.self)
        let writes = 200
        let polls = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0 ..< pollers {
                group.addTask {
                    var polls = 0
                    while try await db.table(Course.self).count() < writes { polls += 1 }
                    return polls
                }
            }
            group.addTask {
                for id in 1 ... writes { try await db.table(Course.self).insert(Course(id: id, title: "course \(id)")) }
                return 0
            }
            return try await group.reduce(0, +)
        }
        #expect(try await db.table(Course.self).count() == writes)
        #expect(polls > 0, "the pollers ran while the writes went on")
        try await db.shutdown()
    }
}

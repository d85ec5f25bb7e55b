@_spi(CRUDDriver) import CRUD
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// On PostgreSQL and MySQL, async reads and single-statement writes wait for the server in the
/// calling task, on the library's event loop, instead of blocking a thread of a connection's queue:
/// the threads stay few under any number of tasks, and what the funnel does for every statement
/// (spans, errors, a lost connection) holds.
@Suite("server calls awaited without a thread")
struct AwaitingServerTests {
    static let servers = Backend.all.filter { $0 != .sqlite }

    /// A query of one row, `value` 7, that the server takes `seconds` to answer.
    static func sleeping(_ backend: Backend, seconds: Double) -> String {
        backend == .mysql ? "SELECT 7 AS value FROM (SELECT SLEEP(\(seconds)) AS slept) AS nap" : "SELECT 7 AS value FROM pg_sleep(\(seconds))"
    }

    @Test("64 tasks at once, reading (select, count, first, a prepared lookup), inserting and counting, or both in transactions: the library adds at most one thread per core and the event loop's",
          .timeLimit(.minutes(2)), arguments: servers, ["reads", "writes", "transactions"])
    func threadsStayBounded(_ backend: Backend, _ load: String) async throws {
        // The probe counts its threads every 2 ms while the tasks run.
        let (status, output) = try await BuiltProgram.runThreadsProbe(backend, ["load=\(load)"])
        #expect(status == 0, "\(output)")
        let counts = output.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(counts.count >= 2, "\(output)")
        let added = counts[1] - counts[0]
        #expect(added <= ProcessInfo.processInfo.activeProcessorCount + 1, "\(output)")
    }

    @Test("64 tasks upserting rows, inserting then updating them: on PostgreSQL the library adds at most one thread per core and the event loop's",
          .timeLimit(.minutes(2)), .enabled(if: !PostgresTestServer.isSkipped, "CRUD_SKIP_POSTGRES=1"))
    func upsertThreadsStayBounded() async throws {
        // MySQL's upsert goes row by row, inserting then updating on a collision: on its connection's queue.
        try await threadsStayBounded(.postgres, "upserts")
    }

    @Test("an awaited read is one span that lasts as long as the server worked, and a failing one is reported once with the server's error",
          arguments: servers)
    func spansAndErrors(_ backend: Backend) async throws {
        let tracer = InMemoryTracer()
        let configuration = try withTracer(tracer) { try backend.open() }
        try await spansAndErrors(configuration, tracer, backend)
    }

    func spansAndErrors<C: DatabaseConfigurationProtocol>(_ configuration: C, _ tracer: InMemoryTracer, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        let failures = Collector<String>()
        db.didFail = { failures.append("\($0)") }
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS " + Self.sleeping(backend, seconds: 0.2))

        tracer.clearAll()
        #expect(try await db.table(ConnectionNumber.self).first()?.value == 7)
        let spans = tracer.finishedSpans.filter { $0.operationName == "SELECT" }
        try #require(spans.count == 1, "\(tracer.finishedSpans.map(\.operationName))")
        let lasted = spans[0].endInstant.nanosecondsSinceEpoch - spans[0].startInstant.nanosecondsSinceEpoch
        #expect(lasted >= 200_000_000, "the span covers the server's 200 ms: \(lasted) ns")

        tracer.clearAll()
        let error = await #expect(throws: CRUDSQLExeError.self) { try await db.table(Course.self).count() }
        let missingTable = backend == .mysql ? "1146" : "42P01"
        #expect(error?.code == missingTable && error?.sql?.contains("Course") == true, "\(String(describing: error))")
        #expect(failures.items.count == 1 && failures.items.first?.contains(missingTable) == true, "\(failures.items)")
        #expect(tracer.finishedSpans.filter { $0.operationName == "SELECT" }.map { $0.status?.code } == [.error])
        try await db.shutdown()
    }

    @Test("awaited writes: rows inserted by one statement are all stored or none, updates and deletes count their rows, an observer sees them",
          arguments: servers)
    func writes(_ backend: Backend) async throws {
        try await writes(backend.open())
    }

    func writes<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        let seen = Collector<String>()
        let observers = [CRUDChangeKind.insert, .update, .delete].map { kind in db.observe(kind, on: Course.self) { seen.append("\(kind) \($0)") } }
        let courses = db.table(Course.self)
        try await courses.insert((1 ... 3).map { Course(id: $0, title: "course \($0)") })
        // The third row collides with a stored one: the statement fails, and none of its rows stays.
        let error = await #expect(throws: CRUDSQLExeError.self) {
            try await courses.insert([Course(id: 4, title: "new"), Course(id: 5, title: "new"), Course(id: 1, title: "again")])
        }
        #expect(error?.kind == .uniqueViolation, "\(String(describing: error))")
        #expect(try await courses.order(by: \.id).select().map(\.id) == [1, 2, 3])
        #expect(try await courses.where(\Course.id >= 2).update(Course(id: 0, title: "renamed"), setKeys: \.title).changedRows == 2)
        #expect(try await courses.where(\Course.id == 3).delete().changedRows == 1)
        // The synchronous form counts the same (on MySQL a DELETE … RETURNING, which an observer
        // makes it, once reported none).
        #expect(try await onThread { try db.table(Course.self).where(\Course.id == 2).delete().changedRows } == 1)
        #expect(try await courses.order(by: \.id).select().rows == [Course(id: 1, title: "course 1")])
        #expect(await seen.wait { $0.count >= 7 }, "\(seen.items)")
        #expect(seen.items.sorted() == ["delete 2", "delete 3", "insert 1", "insert 2", "insert 3", "update 2", "update 3"], "\(seen.items)")
        for observer in observers { observer.cancel() }
        try await db.shutdown()
    }

    @Test("awaited inserts over several statements (more rows than one takes, returning a row each) run in one transaction: all rows or none, returned in order, observed once; an update returns its rows",
          arguments: servers)
    func insertsOverSeveralStatements(_ backend: Backend) async throws {
        try await insertsOverSeveralStatements(backend.open(), backend)
    }

    func insertsOverSeveralStatements<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        let inserted = Collector<Int>()
        let observer = db.observe(.insert, on: Course.self) { inserted.append($0) }
        let courses = db.table(Course.self)
        try await courses.insert(Course(id: 2_500, title: "taken"))
        // Three statements of at most 1,000 rows; the last row collides, and none of the others stays.
        let error = await #expect(throws: CRUDSQLExeError.self) {
            try await courses.insert((1 ... 2_500).map { Course(id: $0, title: "course \($0)") })
        }
        #expect(error?.kind == .uniqueViolation, "\(String(describing: error))")
        #expect(try await courses.count() == 1)
        try await courses.insert((1 ... 2_499).map { Course(id: $0, title: "course \($0)") })
        #expect(try await courses.count() == 2_500)
        #expect(await inserted.wait { $0.count >= 2_500 }, "\(inserted.items.count)")
        #expect(inserted.items.count == 2_500 && Set(inserted.items) == Set(1 ... 2_500))
        observer.cancel()

        try await db.sql("DROP TABLE IF EXISTS \(db.quote(ReturningItem.self))")
        try await db.sql("CREATE TABLE \(db.quote(ReturningItem.self)) (id UUID PRIMARY KEY, def int DEFAULT 42)")
        let items = db.table(ReturningItem.self)
        let kept = ReturningItem(id: UUID())
        #expect(try await items.returning(\.id, insert: kept) == kept.id)
        await #expect(throws: CRUDSQLExeError.self) {
            try await items.returning(insert: [ReturningItem(id: UUID()), ReturningItem(id: UUID()), kept], ignoreKeys: \.def)
        }
        #expect(try await items.count() == 1)
        let fresh = (0 ..< 5).map { _ in ReturningItem(id: UUID()) }
        #expect(try await items.returning(insert: fresh, ignoreKeys: \.def) == fresh.map { ReturningItem(id: $0.id, def: 42) })
        #expect(try await items.returning(\.def, insert: [ReturningItem(id: UUID()), ReturningItem(id: UUID())], ignoreKeys: \.def) == [42, 42])
        // An update's returning, where the database has UPDATE … RETURNING.
        let keptRow = items.where(\ReturningItem.id == kept.id)
        if backend == .postgres {
            #expect(try await keptRow.returning(\.def, update: ReturningItem(id: kept.id, def: 7), setKeys: \.def) == [7])
        } else {
            await #expect(throws: CRUDSQLGenError.self) { try await keptRow.returning(\.def, update: ReturningItem(id: kept.id, def: 7)) }
        }
        try await db.sql("DROP TABLE \(db.quote(ReturningItem.self))")
        try await db.shutdown()
    }

    @Test("an awaited join (select, first) reads a transaction's own rows, each parent with its limited children; outside one it reads a snapshot of its own",
          arguments: servers)
    func joins(_ backend: Backend) async throws {
        try await joins(backend.open())
    }

    func joins<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Shelf.self, policy: .dropTable)
        try await db.create(Book.self, policy: .dropTable)
        let shelves = db.table(Shelf.self).order(by: \.id)
        try await db.transaction { tx in
            try await tx.table(Shelf.self).insert([Shelf(id: 1, bookCount: 3), Shelf(id: 2, bookCount: 0)])
            try await tx.table(Book.self).insert([Book(id: 1, shelfId: 1), Book(id: 2, shelfId: 1), Book(id: 3, shelfId: 1)])
            let read = try await shelves.join(\.books, on: \.id, equals: \.shelfId).order(by: \.id).limit(2).select()
            #expect(read.map(\.id) == [1, 2])
            #expect(read.map { $0.books?.map(\.id) } == [[1, 2], []])
        }
        let committed = try await shelves.join(\.books, on: \.id, equals: \.shelfId).select()
        #expect(committed.map { $0.books?.map(\.id).sorted() } == [[1, 2, 3], []])
        let first = try await shelves.join(\.books, on: \.id, equals: \.shelfId).order(by: \.id).first()
        #expect(first?.id == 1 && first?.books?.map(\.id) == [1, 2, 3], "\(String(describing: first))")
        try await db.shutdown()
    }

    @Test("a statement's first preparation waits for the server without a thread: while a query waits for a table lock, another task runs on the same one thread",
          .timeLimit(.minutes(1)), arguments: servers)
    func preparingAwaits(_ backend: Backend) async throws {
        try await preparingAwaits(backend.open(), backend)
    }

    func preparingAwaits<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        guard #available(macOS 15.0, *) else { return }
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        try await db.table(Course.self).insert(Course(id: 1, title: "locked"))
        // Parsing a query takes a lock on its table (PostgreSQL), or reading it waits (MySQL), while
        // another connection holds the table.
        let locker = try db.createChild()
        if backend == .postgres {
            try locker.beginTransaction()
            try await locker.sql("LOCK TABLE \(db.quote("Course")) IN ACCESS EXCLUSIVE MODE")
        } else {
            try await locker.sql("LOCK TABLES \(db.quote("Course")) WRITE")
        }
        // Fresh connections, on which nothing is prepared yet.
        let reader = Database(configuration: configuration)
        let thread = TestThreads(name: "OneThread")
        defer { thread.stop() }
        let finished = Collector<String>()
        let waiting = Task(executorPreference: thread) {
            defer { finished.append("query") }
            return try await reader.table(Course.self).where(\Course.id == 1).first()?.title
        }
        try await Task.sleep(for: .milliseconds(300))
        Task(executorPreference: thread) { finished.append("other task") }
        #expect(await finished.wait(timeout: .seconds(5)) { $0.contains("other task") }, "the query held the one thread")
        #expect(finished.items == ["other task"], "the query waited for the lock")
        if backend == .postgres { try locker.rollbackTransaction() } else { try await locker.sql("UNLOCK TABLES") }
        #expect(try await waiting.value == "locked")
        try await reader.shutdown()
        try await db.shutdown()
    }

    @Test("a connection lost while a read waits fails that read with .connectionLost, and the next read reconnects", arguments: servers)
    func lostWhileWaiting(_ backend: Backend) async throws {
        try await lostWhileWaiting(backend.open(connections: 1, timeout: .seconds(30)), backend.open(), backend)
    }

    func lostWhileWaiting<C: DatabaseConfigurationProtocol, A: DatabaseConfigurationProtocol>(_ configuration: C, _ other: A,
                                                                                             _ backend: Backend) async throws {
        // One connection, whose server session the other database ends while it waits.
        let db = Database(configuration: configuration)
        let admin = Database(configuration: other)
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS " + Self.sleeping(backend, seconds: 10))
        let session = try await db.sql(backend == .mysql ? "SELECT CONNECTION_ID() AS value" : "SELECT pg_backend_pid() AS value",
                                       ConnectionNumber.self)[0].value
        // Behind pgbouncer each call may run on another server connection: the read's is told by
        // its database (one per test there) and its query.
        let pooled = backend == .postgres && PostgresTestServer.throughPooler
        let database = pooled ? try await db.sql("SELECT oid::bigint AS value FROM pg_database WHERE datname = current_database()",
                                                 ConnectionNumber.self)[0].value : 0
        let backendOfRead = pooled ? "datid = \(database) AND query LIKE '%ConnectionNumber%'" : "pid = \(session)"
        let read = Task { try await db.table(ConnectionNumber.self).count() }
        let running = backend == .mysql ? "SELECT COUNT(*) AS value FROM information_schema.PROCESSLIST WHERE ID = \(session) AND INFO IS NOT NULL"
            : "SELECT count(*)::bigint AS value FROM pg_stat_activity WHERE \(backendOfRead) AND state = 'active'"
        var waiting = 0
        for _ in 0 ..< 200 where waiting == 0 {
            try await Task.sleep(for: .milliseconds(25))
            waiting = try await admin.sql(running, ConnectionNumber.self)[0].value
        }
        #expect(waiting == 1, "the read ran on the server")
        try await admin.sql(backend == .mysql ? "KILL \(session)"
            : "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE \(backendOfRead) AND state = 'active'")
        let error = await #expect(throws: CRUDSQLExeError.self) { try await read.value }
        #expect(error?.kind == .connectionLost, "\(String(describing: error))")
        // The one connection reconnects for the next call.
        try await db.sql("DROP VIEW \(db.quote("ConnectionNumber"))")
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS SELECT 7 AS value")
        #expect(try await db.table(ConnectionNumber.self).first()?.value == 7)
        try await db.shutdown()
        try await admin.shutdown()
    }
}

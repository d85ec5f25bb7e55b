@_spi(CRUDDriver) import CRUD
#if MySQL
import CRUDMySQL
#endif
import CRUDPostgres
import CRUDSQLite
import Foundation
import Testing

/// One row of one integer: a server's id of a connection, or a count.
struct ConnectionNumber: CRUDModel {
    let value: Int
}

/// `shutdown()`: what a server calls as it stops. Calls under way finish, new ones are refused, the
/// connections close and the observers end, on every backend.
@Suite("shutdown")
struct ShutdownTests {
    /// A new empty database, twice: the configuration under test, and another one of the same
    /// database that looks at it from outside (on PostgreSQL behind pgbouncer, directly; `pooled`
    /// names the database whose clients pgbouncer lists).
    func openTwice(_ backend: Backend) throws -> (tested: any DatabaseConfigurationProtocol, outside: any DatabaseConfigurationProtocol,
                                                  path: String?, pooled: String?) {
        switch backend {
        case .sqlite:
            let path = Backend.temporaryFile("sqlite")
            return (try Backend.sqliteConfiguration(at: path, busyTimeout: .seconds(30)),
                    try Backend.sqliteConfiguration(at: path, busyTimeout: .seconds(30)), path, nil)
        case .postgres:
            let server = try PostgresTestServer.shared.get()
            let parameters = try server.freshParameters()
            let tested = try PostgresTestServer.configuration(parameters, sharing: false)
            guard server.pooler != nil else { return (tested, try PostgresTestServer.configuration(parameters, sharing: false), nil, nil) }
            var direct = parameters
            direct["port"] = server.parameters["port"]
            return (tested, try PostgresDatabaseConfiguration(parameters: direct), nil, parameters["dbname"])
        case .mysql:
            #if MySQL
            let server = try MariaDBTestServer.shared.get()
            let database = try server.freshDatabase()
            return (try server.configuration(database: database, pool: .init()), try server.configuration(database: database, pool: .init()), nil, nil)
            #else
            throw Backend.withoutMySQL
            #endif
        }
    }

    /// The server's id of the connection a call runs on (`nil` on SQLite).
    static func connectionID<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ backend: Backend) async throws -> Int? {
        switch backend {
        case .sqlite: nil
        case .postgres: try await db.sql("SELECT pg_backend_pid() AS value", ConnectionNumber.self)[0].value
        case .mysql: try await db.sql("SELECT CONNECTION_ID() AS value", ConnectionNumber.self)[0].value
        }
    }

    /// Whether `condition` holds within 2 s, looking every 10 ms.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// How many of the server's connections with these ids are still there, seen from `outside`.
    static func stillOpen<C: DatabaseConfigurationProtocol>(_ ids: Set<Int>, outside: Database<C>, _ backend: Backend) throws -> Int {
        let query = switch backend {
        case .sqlite: ""
        case .postgres: "SELECT count(*) AS value FROM pg_stat_activity WHERE pid = \(outside.placeholder(0))"
        case .mysql: "SELECT COUNT(*) AS value FROM information_schema.PROCESSLIST WHERE ID = \(outside.placeholder(0))"
        }
        return try ids.reduce(0) { open, id in open + (try outside.sql(query, bindings: [.integer(Int64(id))], ConnectionNumber.self)[0].value) }
    }

    @Test("shutdown lets a transaction under way commit, refuses new calls with .shutDown, closes every connection, ends the observers",
          arguments: Backend.all)
    func shutdownIsGraceful(_ backend: Backend) async throws {
        let (tested, outside, path, pooled) = try openTwice(backend)
        // The whole test on the suite's own threads, its transaction too: on a loaded cooperative
        // pool one of them ran seconds behind the other (the transaction not started, or over
        // before the shutdown began).
        try await CancellationTests.onOwnThreads { try await shutdownIsGraceful(tested, outside, path, pooled, backend) }
    }

    func shutdownIsGraceful<C: DatabaseConfigurationProtocol, O: DatabaseConfigurationProtocol>(
        _ tested: C, _ outside: O, _ path: String?, _ pooled: String?, _ backend: Backend) async throws {
        let db = Database(configuration: tested)
        try await db.create(Course.self)
        let changes = db.changes(of: Course.self)
        let seen = Task {
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        var ids: Set<Int> = []
        if let id = try await Self.connectionID(db, backend) { ids.insert(id) }

        // A transaction that is under way when the shutdown starts, and goes on once the test has
        // seen the shutdown wait for it: a transaction that only slept 300 ms was over before the
        // shutdown began when the checks between them took longer under CI's load.
        let started = Collector<Int?>()
        let goOn = Collector<Bool>()
        // On the suite's own threads: a loaded cooperative pool kept it from starting for seconds.
        let transaction = CancellationTests.startTask {
            try await db.transaction { db in
                started.append(try await Self.connectionID(db, backend))
                try await db.table(Course.self).insert(Course(id: 1, title: "first"))
                _ = await goOn.wait { !$0.isEmpty }
                try await db.table(Course.self).insert(Course(id: 2, title: "second"))
            }
        }
        #expect(await started.wait { !$0.isEmpty }, "the transaction started")
        if let id = started.items.first ?? nil { ids.insert(id) }

        let other = Database(configuration: outside)
        if let path {
            #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the database is open in WAL mode")
        } else if let pooled {
            // pgbouncer keeps its server connections: what must close are the pool's to pgbouncer.
            #expect(try PostgresTestServer.shared.get().poolerClients(of: pooled) >= 1, "pgbouncer lists the pool's connections")
        } else {
            #expect(try Self.stillOpen(ids, outside: other, backend) == ids.count, "the server sees the connections \(ids)")
        }

        let shutDown = Collector<Bool>()
        // On the suite's own threads too: on the loaded cooperative pool a task did not start for
        // the half minute the test waited.
        let shutdown = CancellationTests.startTask {
            try await db.shutdown()
            shutDown.append(true)
        }
        // Once new calls are refused, the shutdown has begun, and waits for the transaction.
        var refusing = false
        let deadline = ContinuousClock.now + .seconds(20)
        while !refusing, ContinuousClock.now < deadline {
            do {
                _ = try await db.table(Course.self).count()
                try await Task.sleep(for: .milliseconds(5))
            } catch let error as CRUDSQLExeError where error.kind == .shutDown {
                refusing = true
            }
        }
        #expect(refusing, "the shutdown began")
        #expect(shutDown.items.isEmpty, "shutdown waits for the transaction under way")
        goOn.append(true)
        try await shutdown.value
        try await transaction.value
        #expect(shutDown.items == [true])

        let refused = await #expect(throws: CRUDSQLExeError.self) { try await db.table(Course.self).count() }
        #expect(refused?.kind == .shutDown)
        #expect(refused?.msg.contains("was shut down") == true, "\(String(describing: refused))")
        #expect(throws: CRUDSQLExeError.self) { try db.table(Course.self).insert(Course(id: 3, title: "late")) }
        #expect(await seen.value == 2, "the stream of changes got the transaction's two inserts and then ended")

        // What the transaction committed is there, and nothing later.
        #expect(try await other.table(Course.self).order(by: \.id).select().map(\.title) == ["first", "second"])
        if let path {
            // SQLite removes the write-ahead log when the last connection to the file closes; the
            // outside configuration has its own, so it is shut down first.
            try await other.shutdown()
            // The last call's connection closes as that call lets go of its session, which may be
            // a moment after the pool signalled that every lease came back.
            let closed = await Self.eventually { !FileManager.default.fileExists(atPath: path + "-wal") }
            #expect(closed, "every connection to \(path) closed")
        } else if let pooled {
            let server = try PostgresTestServer.shared.get()
            let closed = await Self.eventually { (try? server.poolerClients(of: pooled)) == 0 }
            #expect(closed, "pgbouncer still lists \((try? server.poolerClients(of: pooled)) ?? -1) of the pool's connections")
            try await other.shutdown()
        } else {
            #expect(ids.count >= 1)
            // The server notices a closed connection at once, but its bookkeeping may lag.
            var open = try Self.stillOpen(ids, outside: other, backend)
            for _ in 0 ..< 100 where open > 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = try Self.stillOpen(ids, outside: other, backend)
            }
            #expect(open == 0, "the server still has \(open) of the connections \(ids)")
            try await other.shutdown()
        }
    }

    @Test("a database's life (64 tasks at once, a transaction, a cancelled and a timed-out statement, shutdown) leaves no thread behind",
          .timeLimit(.minutes(2)), arguments: Backend.all)
    func leavesNoThreadBehind(_ backend: Backend) async throws {
        // Dispatch keeps the workers its queues used, idle, for later work (it does not end them on
        // Linux): the probe tells those from a thread of CRUD's own or one blocked in a database call.
        let (status, output) = try await BuiltProgram.runThreadsProbe(backend)
        #expect(status == 0, "\(output)")
        #expect(output.hasPrefix("threads: ") && !output.contains("left behind"), "\(output)")
    }

    @Test("an observer that shuts the database down (on the library's delivery queue) ends the observers without waiting for itself")
    func shutdownFromAnObserver() async throws {
        let db = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        try await db.create(Course.self)
        let outcome = Collector<String>()
        db.observe(on: Course.self) { _ in
            do {
                try db.shutdown()
                outcome.append("shut down")
            } catch {
                outcome.append("\(error)")
            }
        }
        let stream = db.changes(of: Course.self)
        try await db.table(Course.self).insert(Course(id: 1, title: "a"))
        #expect(await outcome.wait(timeout: .seconds(10)) { !$0.isEmpty }, "the observer's shutdown returned")
        #expect(outcome.items == ["shut down"])
        var seen = 0
        for await _ in stream { seen += 1 }
        #expect(seen == 1, "the stream got the insert, then ended")
    }

    @Test("shutdown twice succeeds; inside a transaction it is refused; a call between statements past the grace period does not hold it",
          arguments: Backend.all)
    func shutdownMisuse(_ backend: Backend) async throws {
        let (tested, _, _, _) = try openTwice(backend)
        // Timed on the suite's own threads, which the suites beside this one do not keep busy.
        try await CancellationTests.onOwnThreads { try await shutdownMisuse(tested) }
    }

    func shutdownMisuse<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        let inside = #expect(throws: CRUDSQLExeError.self) { try db.transaction { try db.shutdown() } }
        #expect(inside?.msg.contains("inside a transaction") == true, "\(String(describing: inside))")
        #expect(try await db.table(Course.self).count() == 0, "the refused shutdown left the database running")

        // A transaction whose body waits between two statements past the grace period: nothing
        // runs on its connection to interrupt, so shutdown stops waiting for it after the interrupt
        // window (a second) and returns (it threw before, and a service that let it through crashed).
        let held = try await HeldTransaction(on: db)
        let clock = ContinuousClock()
        let began = clock.now
        try await db.shutdown(gracePeriod: .milliseconds(50))
        let took = clock.now - began
        #expect(took >= .milliseconds(1050) && took < .seconds(5), "shutdown took \(took)")
        try? await held.release()

        // Again, now that nothing runs: it succeeds, synchronously too; a child, which opens a
        // connection of its own, is refused.
        try await db.shutdown()
        try Self.afterShutdown(db)
    }

    @Test("past the grace period, a statement still running is interrupted: its call fails with .shutDown, its connection closes, shutdown returns at once",
          arguments: Backend.all)
    func interruptsPastGracePeriod(_ backend: Backend) async throws {
        let (tested, outside, _, _) = try openTwice(backend)
        try await CancellationTests.onOwnThreads { try await interruptsPastGracePeriod(tested, outside, backend) }
    }

    func interruptsPastGracePeriod<C: DatabaseConfigurationProtocol, O: DatabaseConfigurationProtocol>(
        _ tested: C, _ outside: O, _ backend: Backend) async throws {
        let db = Database(configuration: tested)
        let other = Database(configuration: outside)
        // The pool's one connection, which the long statement then runs on.
        let id = try await Self.connectionID(db, backend)
        // On the suite's own threads, which the cases beside this one do not keep busy.
        let long = CancellationTests.startTask { try await db.sql(CancellationTests.longStatement(backend), ConnectionNumber.self) }
        try await Task.sleep(for: CancellationTests.running)
        let clock = ContinuousClock()
        let began = clock.now
        try await db.shutdown(gracePeriod: .milliseconds(100))
        let took = clock.now - began
        // The statement runs ten seconds or more: shutdown returned once the interrupt stopped it.
        #expect(took >= .milliseconds(100) && took < .seconds(3), "shutdown took \(took)")
        let failed = await #expect(throws: CRUDSQLExeError.self) { _ = try await long.value }
        #expect(failed?.kind == .shutDown, "\(String(describing: failed))")
        #expect(failed?.msg.contains("was shut down while this call ran") == true, "\(String(describing: failed))")
        // Behind pgbouncer the id is of a server connection, which pgbouncer keeps.
        let pooled = try backend == .postgres && PostgresTestServer.shared.get().pooler != nil
        if let id, !pooled {
            var open = try Self.stillOpen([id], outside: other, backend)
            for _ in 0 ..< 100 where open > 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = try Self.stillOpen([id], outside: other, backend)
            }
            #expect(open == 0, "the server still has the interrupted call's connection \(id)")
        }
        try await other.shutdown()
    }

    static func afterShutdown<C: DatabaseConfigurationProtocol>(_ db: Database<C>) throws {
        try db.shutdown()
        let child = #expect(throws: CRUDSQLExeError.self) { try db.createChild() }
        #expect(child?.kind == .shutDown)
    }
}

/// A transaction on another task that has inserted a row and holds its connection until released.
struct HeldTransaction {
    private let released = Collector<Bool>()
    private let task: Task<Void, any Error>

    init<C: DatabaseConfigurationProtocol>(on db: Database<C>) async throws {
        let started = Collector<Bool>(), released = released
        // On the suite's own threads: a loaded cooperative pool kept it from starting for seconds.
        task = CancellationTests.startTask {
            try await db.transaction { db in
                try await db.table(Course.self).insert(Course(id: 1, title: "held"))
                started.append(true)
                #expect(await released.wait { !$0.isEmpty })
            }
        }
        #expect(await started.wait { !$0.isEmpty }, "the transaction started")
    }

    /// Lets the transaction end, and waits for its commit.
    func release() async throws {
        released.append(true)
        try await task.value
    }
}

import CRUD
import CRUDPostgres
import Foundation
import Testing

/// PostgreSQL with the pool's sessions sharing fewer server connections (`serverConnections`):
/// async reads outside a transaction share them at once through libpq's pipeline mode, in batches;
/// a transaction, a write or a synchronous call holds one alone. (`.ci/run` also runs the whole
/// shared suite this way: `CRUD_TEST_POSTGRES_SERVER_CONNECTIONS=2`.)
@Suite("PostgreSQL sessions sharing server connections", .enabled(if: !PostgresTestServer.isSkipped && !PostgresTestServer.throughPooler))
struct SharedServerConnectionTests {
    /// A database of `sessions` sessions sharing at most `servers` server connections, with
    /// `courses` courses (id n titled "course n"), whose backends the server lists under the
    /// returned application name, and a database of its own connections on the same schema to
    /// watch them.
    func open(sessions: Int, servers: Int, courses: Int) async throws
        -> (db: Database<PostgresDatabaseConfiguration>, admin: Database<PostgresDatabaseConfiguration>, name: String) {
        var parameters = try PostgresTestServer.shared.get().freshParameters()
        let name = "crud_shared_" + UUID().uuidString.prefix(8).lowercased()
        parameters["application_name"] = name
        let db = Database(configuration: try PostgresDatabaseConfiguration(parameters: parameters, pool: .init(maximumConnections: sessions),
                                                                            serverConnections: servers))
        parameters["application_name"] = name + "_admin"
        try await db.create(Course.self)
        try await db.table(Course.self).insert((1 ... courses).map { Course(id: $0, title: "course \($0)") })
        return (db, Database(configuration: try PostgresDatabaseConfiguration(parameters: parameters)), name)
    }

    /// A transaction that inserts course `id` titled `title`, appends `id` to `held`, and keeps its
    /// server connection until `release` holds for what `finish` collected.
    func holdingTransaction(on db: Database<PostgresDatabaseConfiguration>, inserting id: Int, title: String = "uncommitted",
                            held: Collector<Int>, until finish: Collector<Int>,
                            release: @escaping @Sendable ([Int]) -> Bool) -> Task<Void, any Error> {
        Task {
            try await db.transaction { tx in
                try await tx.table(Course.self).insert(Course(id: id, title: title))
                held.append(id)
                _ = await finish.wait(timeout: .seconds(20), until: release)
            }
        }
    }

    /// Opens `count` sessions of `db`'s pool, and with them as many server connections: `count`
    /// transactions at once, each kept until all are inside.
    func openSessions(_ count: Int, of db: Database<PostgresDatabaseConfiguration>) async throws {
        let inside = Collector<Int>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for session in 1 ... count {
                group.addTask {
                    try await db.transaction { tx in
                        inside.append(session)
                        #expect(await inside.wait(timeout: .seconds(10)) { $0.count == count })
                        _ = try await tx.table(Course.self).count()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// How many server connections the server has open under `name`.
    func backends(_ name: String, on admin: Database<PostgresDatabaseConfiguration>) async throws -> Int {
        try await admin.sql("SELECT count(*)::bigint AS value FROM pg_stat_activity WHERE application_name = '\(name)'",
                            ConnectionNumber.self)[0].value
    }

    @Test("64 tasks × 100 lookups through 16 sessions on 2 server connections: every answer its own read's, never more than 2 backends",
          .timeLimit(.minutes(1)))
    func readsShareServerConnections() async throws {
        let (db, admin, name) = try await open(sessions: 16, servers: 2, courses: 500)
        let most = Collector<Int>()
        let watching = Task {
            while !Task.isCancelled {
                most.append(try await backends(name, on: admin))
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0 ..< 64 {
                group.addTask {
                    var wrong = 0
                    for step in 0 ..< 100 {
                        let id = (task * 100 + step) % 500 + 1
                        let found = try await db.table(Course.self).where(\Course.id == id).first()
                        if found != Course(id: id, title: "course \(id)") { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        watching.cancel()
        _ = await watching.result
        #expect(wrong == 0, "\(wrong) lookups answered another read's row")
        #expect(most.items.max() ?? 0 <= 2 && most.items.max() ?? 0 >= 1, "\(most.items.max() ?? 0) backends")
        #expect(try await backends(name, on: admin) <= 2)
        try await db.shutdown()
        try await admin.shutdown()
    }

    @Test("a transaction holds its server connection alone: reads go on through the other; with both held they wait, then run",
          .timeLimit(.minutes(1)))
    func transactionsHoldServerConnections() async throws {
        let (db, admin, _) = try await open(sessions: 8, servers: 2, courses: 1)
        let held = Collector<Int>()
        let finish = Collector<Int>()
        func transaction(_ id: Int) -> Task<Void, any Error> {
            holdingTransaction(on: db, inserting: id, held: held, until: finish) { $0.contains(id) }
        }
        let first = transaction(10)
        #expect(await held.wait { $0.count == 1 })
        // One server connection is the transaction's; reads run on the other and see no uncommitted row.
        for _ in 0 ..< 20 { #expect(try await db.table(Course.self).count() == 1) }

        let second = transaction(20)
        #expect(await held.wait { $0.count == 2 }, "the second transaction took the other server connection")
        let done = Collector<Int>()
        let waitingRead = Task {
            defer { done.append(1) }
            return try await db.table(Course.self).count()
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(done.items.isEmpty, "the read waits while both server connections are held")
        finish.append(10)
        try await first.value
        // The read ran once a server connection was free: after the first commit, before the second.
        #expect(try await waitingRead.value == 2)
        finish.append(20)
        try await second.value
        #expect(try await db.table(Course.self).count() == 3)
        try await db.shutdown()
        try await admin.shutdown()
    }

    @Test("a session waiting for a server connection busy with reads takes another that comes free first: the first takes reads again",
          .timeLimit(.minutes(1)))
    func reservationEndsWithTheWait() async throws {
        let (db, admin, _) = try await open(sessions: 8, servers: 2, courses: 1)
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS SELECT 7 AS value FROM pg_sleep(1.5)")
        let held = Collector<Int>()
        let finish = Collector<Int>()
        let holder = holdingTransaction(on: db, inserting: 10, title: "held", held: held, until: finish) { !$0.isEmpty }
        #expect(await held.wait { !$0.isEmpty })
        // The slow read goes into the other server connection's pipeline; the write then waits for
        // that one, the only one no session holds, to answer it.
        let slow = Task { try await db.table(ConnectionNumber.self).first()?.value }
        try await Task.sleep(for: .milliseconds(300))
        let write = Task { _ = try await db.table(Course.self).insert(Course(id: 20, title: "written")) }
        try await Task.sleep(for: .milliseconds(300))
        // The transaction ends first: the write takes its server connection.
        finish.append(1)
        try await holder.value
        try await write.value
        #expect(try await slow.value == 7)

        // One server connection held by a transaction again: reads go through the other at once.
        let again = Collector<Int>()
        let second = holdingTransaction(on: db, inserting: 30, title: "held again", held: again, until: finish) { $0.count >= 2 }
        #expect(await again.wait { !$0.isEmpty })
        let read = Task { try await db.table(Course.self).count() }
        let answered = Collector<Int>()
        Task {
            if let count = try? await read.value { answered.append(count) }
        }
        #expect(await answered.wait(timeout: .seconds(5)) { !$0.isEmpty }, "a read ran while the transaction held the other")
        #expect(answered.items == [3])
        finish.append(2)
        try await second.value
        try await db.shutdown()
        try await admin.shutdown()
    }

    @Test("a cancelled read the server runs stops at once, one queued behind it returns at once, and the reads in the pipeline with them get their own rows",
          .timeLimit(.minutes(4)))
    func cancellingPipelinedReads() async throws {
        let (db, admin, _) = try await open(sessions: 32, servers: 1, courses: 50)
        // Reads of two minutes, and bounds well below: in the whole suite the synchronous tests
        // hold Swift's cooperative threads (one per core) for long stretches, during which this
        // test's tasks do not run; a stall of thirty seconds has been seen, and a bound close to the
        // reads' length then fails although nothing waited for them.
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS SELECT 7 AS value FROM pg_sleep(120)")
        // The server describes the lookup now, so the lookups below go into the pipeline: a first
        // preparation holds the server connection, and would wait for the slow read, up to the
        // pool's timeout, which the whole suite's load on two cores has exceeded.
        #expect(try await db.table(Course.self).where(\Course.id == 50).first()?.title == "course 50")
        let clock = ContinuousClock()
        let start = clock.now
        let slow = Task { try await db.table(ConnectionNumber.self).first() }
        try await Task.sleep(for: .milliseconds(200))
        let queuedSlow = Task { try await db.table(ConnectionNumber.self).first() }
        let lookups = (1 ... 20).map { id in Task { try await db.table(Course.self).where(\Course.id == id).first()?.title } }
        try await Task.sleep(for: .milliseconds(200))

        queuedSlow.cancel()
        await #expect(throws: CancellationError.self) { try await queuedSlow.value }
        #expect(clock.now - start < .seconds(60), "the queued read returned without waiting for the one before it")

        slow.cancel()
        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(clock.now - start < .seconds(60), "the server stopped the running read")
        for (index, lookup) in lookups.enumerated() {
            #expect(try await lookup.value == "course \(index + 1)")
        }
        #expect(clock.now - start < .seconds(90), "nothing waited for the two-minute reads")
        try await db.shutdown()
        try await admin.shutdown()
    }

    @Test("a cancel the server is slow to take holds up no other session: with the postmaster stopped, another session's transaction runs, and the cancelled call stops once the postmaster wakes",
          .timeLimit(.minutes(1)), arguments: ["a pipelined read", "a transaction's statement"])
    func slowCancelHoldsUpNothing(_ cancelled: String) async throws {
        // A cluster of its own: its postmaster is stopped, which would keep other tests from connecting.
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let parameters = ["host": "127.0.0.1", "port": String(cluster.port), "user": "postgres", "password": PostgresCluster.password,
                          "dbname": "postgres"]
        let db = Database(configuration: try PostgresDatabaseConfiguration(parameters: parameters, pool: .init(maximumConnections: 2),
                                                                            serverConnections: 2))
        try await db.create(Course.self)
        try await db.table(Course.self).insert(Course(id: 1, title: "course 1"))
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS SELECT 7 AS value FROM pg_sleep(30)")
        // Both sessions, and with them both server connections, open while the postmaster takes connections.
        try await openSessions(2, of: db)

        // A read shares a server connection's pipeline; a transaction holds one alone.
        let slow = cancelled == "a pipelined read"
            ? Task { try await db.table(ConnectionNumber.self).first() }
            : Task { try await db.transaction { tx in try await tx.table(ConnectionNumber.self).first() } }
        // Until the server runs it: under the whole suite's load 300 ms were not always enough, and
        // a call cancelled before its statement was sent returned at once.
        let watcher = Database(configuration: try PostgresDatabaseConfiguration(parameters: parameters))
        var running = false
        for _ in 0 ..< 500 where !running {
            running = try await watcher.sql("SELECT count(*)::bigint AS value FROM pg_stat_activity WHERE wait_event = 'PgSleep'",
                                            ConnectionNumber.self)[0].value == 1
            if !running { try await Task.sleep(for: .milliseconds(20)) }
        }
        try await watcher.shutdown()
        #expect(running, "the slow statement started on the server")
        let clock = ContinuousClock()
        let stopped = clock.now
        try cluster.signalPostmaster(SIGSTOP)
        let wake = Task {
            try? await Task.sleep(for: .seconds(4))
            try cluster.signalPostmaster(SIGCONT)
        }
        defer { try? cluster.signalPostmaster(SIGCONT) }
        slow.cancel()
        try await Task.sleep(for: .milliseconds(200))
        let title = try await db.transaction { tx in try await tx.table(Course.self).where(\Course.id == 1).first()?.title }
        #expect(title == "course 1")
        #expect(clock.now - stopped < .seconds(3), "the transaction ran while the cancel request waited for the postmaster")

        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(clock.now - stopped >= .seconds(4), "\(cancelled) stopped once the postmaster took the cancel")
        #expect(clock.now - stopped < .seconds(20), "\(cancelled) stopped once the postmaster took the cancel")
        try await wake.value
        #expect(try await db.table(Course.self).where(\Course.id == 1).first()?.title == "course 1")
        try await db.shutdown()
    }

    @Test("server connections ended twice under 16 reading tasks: each read returns its row or fails as .connectionLost, and reads work again after",
          .timeLimit(.minutes(1)))
    func lostUnderReaders() async throws {
        let (db, admin, name) = try await open(sessions: 16, servers: 2, courses: 100)
        let stop = Collector<Int>()
        let outcomes = Collector<String>()
        let readers = (0 ..< 16).map { task in
            Task {
                var step = 0
                while stop.items.isEmpty {
                    let id = (task * 7 + step) % 100 + 1
                    step += 1
                    do {
                        let found = try await db.table(Course.self).where(\Course.id == id).first()
                        outcomes.append(found?.title == "course \(id)" ? "row" : "wrong row")
                    } catch let error as CRUDSQLExeError where error.kind == .connectionLost {
                        outcomes.append("lost")
                    } catch {
                        outcomes.append("\(error)")
                    }
                }
            }
        }
        _ = await outcomes.wait { $0.count >= 200 }
        // Twice: the second time, the server connections ended are those connected again.
        for _ in 1 ... 2 {
            try await admin.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
            let before = outcomes.items.count
            _ = await outcomes.wait { $0.count >= before + 500 }
        }
        stop.append(1)
        for reader in readers { await reader.value }
        let unexpected = Set(outcomes.items).subtracting(["row", "lost"])
        #expect(unexpected.isEmpty, "\(unexpected)")
        #expect(outcomes.items.suffix(100).allSatisfy { $0 == "row" }, "reads work again: \(outcomes.items.suffix(100))")
        #expect(try await db.table(Course.self).where(\Course.id == 5).first()?.title == "course 5")
        try await db.shutdown()
        try await admin.shutdown()
    }

    @Test("server connections the server ended connect again while the database only reads, one task at a time: no session has to hold them",
          .timeLimit(.minutes(1)))
    func endedServerConnectionsReconnectUnderReads() async throws {
        let (db, admin, name) = try await open(sessions: 2, servers: 2, courses: 10)
        try await openSessions(2, of: db)
        #expect(try await backends(name, on: admin) == 2)
        try await admin.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")

        var outcomes: [String] = []
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        var reconnected = 0
        while clock.now < deadline {
            let id = outcomes.count % 10 + 1
            do {
                let found = try await db.table(Course.self).where(\Course.id == id).first()
                outcomes.append(found?.title == "course \(id)" ? "row" : "wrong row")
            } catch let error as CRUDSQLExeError where error.kind == .connectionLost {
                outcomes.append("lost")
            }
            reconnected = try await backends(name, on: admin)
            if reconnected == 2, outcomes.suffix(5) == ["row", "row", "row", "row", "row"] { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(reconnected == 2, "both server connections connected again: \(outcomes)")
        #expect(Set(outcomes).isSubset(of: ["row", "lost"]), "\(outcomes)")
        #expect(outcomes.filter { $0 == "lost" }.count <= 2, "at most the read on each ended server connection fails: \(outcomes)")
        try await db.shutdown()
        try await admin.shutdown()
    }

    @Test("a lost server connection reconnects waiting on the event loop: 8 writers during an outage, whose next host never answers, wait together, adding no thread",
          .timeLimit(.minutes(1)))
    func reconnectWithoutBlocking() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let silent = try LoopbackPort.listeningWithoutAnswer()
        defer { close(silent.socket) }
        let outage = try await OutageProbe.run("postgres", port: cluster.port, silent: silent.port, password: PostgresCluster.password,
                                               writers: 8, attempts: 2) { try cluster.control("stop") }
        // Two rounds of the connect timeout: the first writes find their server connections lost
        // (one of them reconnecting), then the 8 reconnect at once. Blocking: 10 s on 2 cores.
        outage.check(writes: 17, timeouts: 2)
    }
}

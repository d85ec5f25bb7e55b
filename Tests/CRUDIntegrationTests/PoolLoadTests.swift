import CRUD
import Foundation
import Testing

/// One pooled `Database` under contention, short timeouts and storms of cancelled tasks, on every
/// backend: every call returns, nothing waits on a thread or past its work, nothing is lost. One
/// test at a time: a storm of 2,000 tasks would hold up the others' tasks on two cores.
@Suite("pool under load", .serialized)
struct PoolLoadTests {
    /// The pool's timeout in the storms: long enough that a call that waits for it has stalled.
    static let stormTimeout = Duration.seconds(10)

    @Test("8 threads hammering a pool of 2 with a 2 ms limit for 5 s: every call returns (a row or a timeout), no thread spins",
          .timeLimit(.minutes(2)), arguments: Backend.all)
    func hammer(_ backend: Backend) async throws {
        try await hammer(backend.open(connections: 2, timeout: .milliseconds(2)))
    }

    func hammer<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        let running = RunningFlag()
        let acknowledged = Collector<Int>()
        let unexpected = Collector<String>()
        // Per thread: the seconds of CPU it used, and of the wall clock it ran.
        let finished = Collector<(cpu: Double, wall: Double)>()
        for thread in 0 ..< 8 {
            Thread {
                let start = Date()
                var iteration = 0
                while running.isSet {
                    let id = thread * 10_000_000 + iteration
                    iteration += 1
                    do {
                        try db.table(Course.self).insert(Course(id: id, title: "t\(thread)"))
                        acknowledged.append(id)
                    } catch let error as CRUDSQLExeError where error.kind == .busyOrLocked {
                        // A timeout: nothing was sent.
                    } catch {
                        unexpected.append("\(error)")
                    }
                }
                finished.append((threadCPUSeconds(), Date().timeIntervalSince(start)))
            }.start()
        }
        try await Task.sleep(for: .seconds(5))
        running.clear()
        #expect(await finished.wait(timeout: .seconds(30)) { $0.count == 8 }, "every thread's last call returned")
        // A waiter spinning past its deadline would have used a whole core; eight threads that mostly
        // wait on two connections share what two cores give.
        for (cpu, wall) in finished.items {
            #expect(cpu < wall * 0.6, "a thread used \(cpu) s of CPU in \(wall) s")
        }
        #expect(unexpected.items.isEmpty, "\(unexpected.items.prefix(3))")
        #expect(acknowledged.count > 8, "the pool served calls all along: \(acknowledged.count)")
        let stored = try await db.table(Course.self).select().map(\.id)
        #expect(Set(stored) == Set(acknowledged.items), "every acknowledged insert is stored, and no refused one")
    }

    @Test("2,000 tasks streaming, selecting, writing in transactions and inserting, cancelled at random: each ends at once, nothing partial, no connection lost to the pool",
          .timeLimit(.minutes(3)), arguments: Backend.all)
    func cancellationStorm(_ backend: Backend) async throws {
        try await cancellationStorm(backend.open(connections: 4, timeout: Self.stormTimeout), connections: 4, backend: backend)
    }

    func cancellationStorm<C: DatabaseConfigurationProtocol>(_ configuration: C, connections: Int, backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.create(StormRow.self)
        try await db.table(StormRow.self).insert((0 ..< 500).map { StormRow(id: $0, batch: -1) })
        let threadsBefore = threadCount()
        let peakThreads = Collector<Int>()
        let lateness = Collector<Duration>()
        let unexpected = Collector<String>()
        let cancelledCount = Collector<Int>()
        let clock = ContinuousClock()
        let sampling = Task {
            while !Task.isCancelled {
                peakThreads.append(threadCount())
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for index in 0 ..< 2_000 {
                let cancelAfter = Duration.milliseconds(Int.random(in: 0 ... 1_500))
                let ended = Collector<ContinuousClock.Instant>()
                let work = Task {
                    defer { ended.append(clock.now) }
                    do {
                        switch index % 4 {
                        case 0:
                            for try await _ in db.table(StormRow.self).select() { await Task.yield() }
                        case 1:
                            _ = try await db.table(StormRow.self).select()
                        case 2:
                            try await db.transaction { tx in
                                try await tx.table(StormRow.self).insert(StormRow(id: 10_000 + 2 * index, batch: index))
                                try await tx.table(StormRow.self).insert(StormRow(id: 10_001 + 2 * index, batch: index))
                            }
                        default:
                            try await db.table(StormRow.self).insert(StormRow(id: 10_000 + 2 * index, batch: index))
                        }
                    } catch is CancellationError {
                        cancelledCount.append(index % 4)
                    } catch {
                        unexpected.append("\(error)")
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: cancelAfter)
                    let cancelled = clock.now
                    work.cancel()
                    await work.value
                    lateness.append(ended.items[0] - cancelled)
                }
            }
        }
        sampling.cancel()
        #expect(Set(cancelledCount.items) == [0, 1, 2, 3], "tasks of every kind were cancelled while they ran or waited")
        let latest = lateness.items.max() ?? .zero
        #expect(latest < .seconds(2), "every task ended within 2 s of its cancellation; the latest took \(latest)")
        #expect(unexpected.items.isEmpty, "only cancellations: \(unexpected.items.prefix(3))")
        let peak = peakThreads.items.max() ?? 0
        // The count is the process's, which the other backends' storms and the suites running
        // meanwhile raise too (81 over the count before, once, in the whole suite); a thread per
        // waiting task would add hundreds: 2,000 tasks wait.
        #expect(peak < threadsBefore + 128, "no thread per waiting task: \(threadsBefore) threads before, \(peak) at the peak")

        // The pool serves the next query at once, and every connection is back in it.
        let next = await clock.measure { _ = try? await db.table(StormRow.self).count() }
        #expect(next < .seconds(2), "\(next)")
        let rows = try await db.table(StormRow.self).where(\StormRow.batch >= 0).select()
        let partial = Dictionary(grouping: rows, by: \.batch).filter { $0.key % 4 == 2 && $0.value.count != 2 }
        #expect(partial.isEmpty, "transactions are whole or absent: \(partial.keys.prefix(5))")
        try await expectAllConnectionsFree(db, connections: connections)
        if let open = try openServerConnections(db, backend: backend) {
            #expect(open.count <= connections, "the server sees at most the pool's \(connections) connections: \(open)")
        }
    }

    @Test("synchronous calls inside tasks beside async transactions: each returns at once or after its work, never stalls the others",
          .timeLimit(.minutes(2)), arguments: Backend.all)
    func syncInTasks(_ backend: Backend) async throws {
        try await syncInTasks(backend.open(connections: 2, timeout: Self.stormTimeout))
    }

    func syncInTasks<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(StormRow.self)
        let clock = ContinuousClock()
        let slowest = Collector<Duration>()
        let refused = Collector<Int>()
        let acknowledged = Collector<Int>()
        let unexpected = Collector<String>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0 ..< 8 {
                group.addTask {
                    for iteration in 0 ..< 20 {
                        let id = (task * 100 + iteration) * 2
                        let start = clock.now
                        do {
                            try blocking { _ = try db.table(StormRow.self).insert(StormRow(id: id, batch: id)) }
                            acknowledged.append(id)
                        } catch let error as CRUDSQLExeError where error.kind == .busyOrLocked && error.msg.contains("use the async form") {
                            refused.append(id)
                        } catch {
                            unexpected.append("\(error)")
                        }
                        slowest.append(clock.now - start)
                        try await db.transaction { tx in
                            try await tx.table(StormRow.self).insert(StormRow(id: id + 1, batch: id))
                            await Task.yield()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(unexpected.items.isEmpty, "\(unexpected.items.prefix(3))")
        let longest = slowest.items.max() ?? .zero
        #expect(longest < Self.stormTimeout / 2, "no synchronous call waited for a stalled pool: the longest took \(longest)")
        let stored = Set(try await db.table(StormRow.self).select().map(\.id))
        let written = Set(acknowledged.items + (0 ..< 8).flatMap { task in (0 ..< 20).map { (task * 100 + $0) * 2 + 1 } })
        #expect(stored == written, "every async transaction and every acknowledged insert, nothing refused")
    }

    @Test("the rule: a synchronous call inside a task never waits for a connection a task holds across an await; outside a task it waits",
          .timeLimit(.minutes(1)), arguments: Backend.all)
    func syncInTaskRule(_ backend: Backend) async throws {
        try await syncInTaskRule(backend.open(connections: 1, timeout: Self.stormTimeout))
    }

    func syncInTaskRule<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        let began = Collector<Bool>()
        let release = RunningFlag()
        let holder = Task {
            try await db.transaction { tx in
                try await tx.table(Course.self).insert(Course(id: 1, title: "held"))
                began.append(true)
                while release.isSet { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        #expect(await began.wait { !$0.isEmpty })
        let clock = ContinuousClock()
        var error: CRUDSQLExeError?
        let took = clock.measure {
            error = #expect(throws: CRUDSQLExeError.self) {
                try blocking { _ = try db.table(Course.self).insert(Course(id: 2, title: "sync in a task")) }
            }
        }
        #expect(error?.kind == .busyOrLocked && error?.msg.contains("use the async form (`try await`)") == true, "\(String(describing: error))")
        #expect(took < Self.stormTimeout / 2, "refused at once, not after the pool's timeout: \(took)")
        // Outside any task, the same call waits until the transaction gives the connection back.
        let waiting = Task { try await onThread { _ = try db.table(Course.self).insert(Course(id: 3, title: "from a thread")) } }
        try await Task.sleep(for: .milliseconds(200))
        release.clear()
        try await holder.value
        _ = try await waiting.value
        #expect(try await db.table(Course.self).order(by: \.id).select().map(\.id) == [1, 3])
    }

    @Test("a server stopped and started under 4 writers: every failure while it is down is .connectionLost, nothing acknowledged is lost, calls after the restart work",
          .timeLimit(.minutes(3)), arguments: Backend.all.filter { $0 != .sqlite })
    func outage(_ backend: Backend) async throws {
        switch backend {
        case .sqlite:
            return
        case .postgres:
            _ = try PostgresTestServer.shared.get()
            // A cluster of its own, so stopping it disturbs no other test.
            let cluster = try PostgresCluster.start()
            defer { cluster.stop() }
            try await outage(try cluster.database(), stop: { try cluster.control("stop") }, start: { try cluster.control("start") })
        case .mysql:
            #if MySQL
            _ = try MariaDBTestServer.shared.get()
            let server = try MariaDBServer.start()
            defer { server.stop() }
            try await outage(try server.database(), stop: server.shutDown, start: server.startAgain)
            #endif
        }
    }

    func outage<C: DatabaseConfigurationProtocol>(_ db: Database<C>, stop: @escaping @Sendable () throws -> Void,
                                                  start: @escaping @Sendable () throws -> Void) async throws {
        try await db.create(Course.self, policy: .dropTable)
        let running = RunningFlag()
        let acknowledged = Collector<Int>()
        let failed = Collector<Int>()
        let failures = Collector<CRUDSQLExeError>()
        let unexpected = Collector<String>()
        let writers = (0 ..< 4).map { writer in
            Task {
                var iteration = 0
                while running.isSet {
                    let id = writer * 1_000_000 + iteration
                    iteration += 1
                    do {
                        try await db.table(Course.self).insert(Course(id: id, title: "w\(writer)"))
                        acknowledged.append(id)
                    } catch let error as CRUDSQLExeError {
                        failures.append(error)
                        failed.append(id)
                    } catch {
                        unexpected.append("\(error)")
                    }
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        try await onThread(stop)
        try await Task.sleep(for: .seconds(1))
        try await onThread(start)
        try await Task.sleep(for: .seconds(1))
        running.clear()
        for writer in writers { await writer.value }

        #expect(!failures.items.isEmpty, "the writers saw the outage")
        let otherKinds = failures.items.filter { $0.kind != .connectionLost }
        #expect(otherKinds.isEmpty, "every failure while the server was down is .connectionLost: \(otherKinds.prefix(3))")
        #expect(unexpected.items.isEmpty, "\(unexpected.items.prefix(3))")
        for id in 0 ..< 20 { try await db.table(Course.self).insert(Course(id: 9_000_000 + id, title: "after")) }
        let stored = Set(try await db.table(Course.self).select().map(\.id))
        #expect(stored.isSuperset(of: acknowledged.items), "every acknowledged insert is stored")
        let unacknowledged = stored.subtracting(acknowledged.items).filter { $0 < 9_000_000 }
        #expect(unacknowledged.isSubset(of: failed.items), "a row stored without acknowledgement is one whose call failed with the connection")
    }

    @Test("index names past the database's identifier limit stay distinct: a unique index on a long table name holds",
          arguments: Backend.all)
    func longIndexNames(_ backend: Backend) async throws { try await longIndexNames(backend.open()) }

    func longIndexNames<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(LongNamedRecord.self)
        let table = db.table(LongNamedRecord.self)
        try await table.index(\.alpha)
        try await table.index(unique: true, \.beta)
        try await table.index(unique: true, \.beta)
        try await table.insert(LongNamedRecord(id: 1, alpha: 1, beta: 7))
        let error = await #expect(throws: CRUDSQLExeError.self) { try await table.insert(LongNamedRecord(id: 2, alpha: 1, beta: 7)) }
        #expect(error?.kind == .uniqueViolation, "\(String(describing: error))")
        #expect(try await table.count() == 1)
    }

    /// Holds `connections` streams open at once, each on a connection of its own: a connection the
    /// storm lost to the pool's count would keep the last from starting before the timeout.
    private func expectAllConnectionsFree<C: DatabaseConfigurationProtocol>(_ db: Database<C>, connections: Int) async throws {
        let started = Collector<Int>()
        let release = RunningFlag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stream in 0 ..< connections {
                group.addTask {
                    var rows = db.table(StormRow.self).select().makeAsyncIterator()
                    _ = try await rows.next()
                    started.append(stream)
                    while release.isSet { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            #expect(await started.wait(timeout: Self.stormTimeout / 2) { $0.count == connections },
                    "all \(connections) connections could be held at once: \(started.count)")
            release.clear()
            try await group.waitForAll()
        }
    }

    /// The connections the server has open to this database; `nil` for SQLite.
    private func openServerConnections<C: DatabaseConfigurationProtocol>(_ db: Database<C>, backend: Backend) throws -> [ServerConnection]? {
        let sql = switch backend {
        case .sqlite: nil as String?
        case .postgres: "SELECT pid AS id, coalesce(state, '') || ' ' || backend_type AS state FROM pg_stat_activity WHERE application_name = current_setting('application_name')"
        case .mysql: "SELECT ID AS id, COMMAND AS state FROM information_schema.PROCESSLIST WHERE DB = DATABASE()"
        }
        guard let sql else { return nil }
        return try db.sql(sql, ServerConnection.self)
    }
}

/// A connection as the server lists it.
struct ServerConnection: CRUDModel {
    let id: Int
    let state: String
}

/// Runs `body` as it is: a synchronous closure, so that the calls in it are the synchronous forms
/// even inside a task.
func blocking<T>(_ body: () throws -> T) rethrows -> T {
    try body()
}

/// The CPU time the calling thread has used, in seconds.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// How many threads the process has now.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

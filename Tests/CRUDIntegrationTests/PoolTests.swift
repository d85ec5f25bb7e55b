import CRUD
import Foundation
import Testing

/// How async callers wait for, and give back, a pooled connection. On SQLite's one writer, where a
/// connection held too long is what every other writer waits for.
@Suite("connection pool")
struct PoolTests {
    @Test("an async write gives its connection back when its work is done, not when its task next runs",
          .timeLimit(.minutes(1)))
    func givenBackOnTheConnectionsQueue() async throws {
        guard #available(macOS 15.0, *) else { return }
        let db = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        try await db.create(Course.self)
        // The child's open transaction keeps SQLite's write lock, so the task's insert waits in
        // SQLite until the child commits, and its task is surely held by then.
        let child = try db.createChild()
        try child.beginTransaction()
        _ = try await child.table(Course.self).insert(Course(id: 1, title: "child"))

        let held = TestThreads(name: "HeldExecutor")
        defer { held.stop() }
        let started = Collector<Bool>()
        let writer = Task(executorPreference: held) {
            started.append(true)
            _ = try await db.table(Course.self).insert(Course(id: 2, title: "held task"))
        }
        #expect(await started.wait(timeout: .seconds(30)) { !$0.isEmpty })
        held.hold()
        try child.commitTransaction()

        // The held task's insert has run, or runs now; its task cannot run again until released.
        // The writer connection must be free for this insert all the same.
        let clock = ContinuousClock()
        var failure: (any Error)?
        let elapsed = await clock.measure {
            do { try await db.table(Course.self).insert(Course(id: 3, title: "other task")) } catch { failure = error }
        }
        held.release()
        _ = try await writer.value
        #expect(failure == nil, "\(failure.map { "\($0)" } ?? "")")
        #expect(elapsed < .seconds(15), "it did not wait for the pool's 30 s timeout: \(elapsed)")
        #expect(try await db.table(Course.self).order(by: \.id).select().map(\.id) == [1, 2, 3])
    }

    @Test("a task cancelled while it waits for a connection stops waiting; the pool serves the next one",
          .timeLimit(.minutes(1)))
    func cancelledWaiter() async throws {
        let db = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        try await db.create(Course.self)
        let inTransaction = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? db.transaction {
                inTransaction.signal()
                finish.wait()
                try db.table(Course.self).insert(Course(id: 1, title: "holder"))
            }
        }
        holder.start()
        inTransaction.wait()

        let waiter = Task { _ = try await db.table(Course.self).insert(Course(id: 2, title: "cancelled")) }
        let next = Task { _ = try await db.table(Course.self).insert(Course(id: 3, title: "next")) }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(clock.now - start < .seconds(15), "it stopped waiting at once, not at the pool's 30 s timeout")

        finish.signal()
        _ = try await next.value
        while !holder.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try await db.table(Course.self).order(by: \.id).select().map(\.id) == [1, 3], "the cancelled insert never ran")
    }

    @Test("a server database's connections close when the last copy of the Database and of its configuration goes away",
          .timeLimit(.minutes(1)), arguments: Backend.all.filter { $0 != .sqlite })
    func connectionsCloseWithTheDatabase(_ backend: Backend) async throws {
        let observer = try backend.open()
        let name = try await useConnections(try backend.open(connections: 4, timeout: .seconds(10)), backend)
        // The server notices each disconnect a moment later.
        var open = try sessions(named: name, on: observer, backend)
        for _ in 0 ..< 100 where open > 0 {
            try await Task.sleep(for: .milliseconds(50))
            open = try sessions(named: name, on: observer, backend)
        }
        #expect(open == 0, "\(open) connections of \(name) still open")
    }

    /// Opens several connections of `configuration` at once, and returns the name the server knows
    /// them by: `configuration` and the database are gone when it returns.
    func useConnections<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws -> String {
        let db = Database(configuration: configuration)
        try await db.create(Course.self)
        // Each task holds its connection (a transaction's) until another task holds one too, so
        // that the pool opens several however the tasks are scheduled on a busy machine.
        let holding = Collector<Int>()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0 ..< 8 {
                group.addTask {
                    try await db.transaction { tx in
                        let count = try await tx.table(Course.self).count()
                        holding.append(task)
                        _ = await holding.wait(timeout: .seconds(10)) { $0.count >= 2 }
                        return count
                    }
                }
            }
            for try await count in group { #expect(count == 0) }
        }
        let name = try #require(try await db.sql(backend == .mysql ? "SELECT DATABASE() AS \"text\"" : "SELECT current_setting('application_name') AS text",
                                                 TextValue.self).first?.text)
        #expect(try sessions(named: name, on: configuration, backend) >= 2, "the pool opened several connections")
        return name
    }

    /// How many sessions the server has open for `name` (PostgreSQL's application name, MySQL's
    /// database), asked through `configuration`.
    func sessions<C: DatabaseConfigurationProtocol>(named name: String, on configuration: C, _ backend: Backend) throws -> Int {
        let sql = backend == .mysql ? "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?"
            : "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = $1"
        return try #require(try Database(configuration: configuration).sql(sql, bindings: [.text(name)], SingleNumber.self).first?.n)
    }
}

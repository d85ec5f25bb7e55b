@_spi(CRUDDriver) import CRUD
import CRUDSQLite
import Foundation
import Testing

/// A cancelled task's statement stops, and so does one past its timeout, on every backend: the call
/// returns at once with `CancellationError` or `.timedOut`, a transaction it was in rolls back, and
/// the pool's next call works.
@Suite("cancellation and statement timeouts")
struct CancellationTests {
    /// A statement that runs for far longer than any test waits, ten seconds or more, and ends by
    /// itself within a minute should a cancellation fail. Not MySQL's
    /// `SLEEP()` or `BENCHMARK()`, which end early without an error when interrupted, so that
    /// their call returns; a scan of MariaDB's sequence engine fails.
    static func longStatement(_ backend: Backend) -> String {
        switch backend {
        case .sqlite:
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS value FROM (SELECT x FROM c LIMIT 60000000)"
        case .postgres:
            "SELECT 1 AS value FROM pg_sleep(10)"
        case .mysql:
            "SELECT COUNT(*) AS value FROM seq_1_to_300000000 WHERE seq % 7 = 1"
        }
    }

    /// How long the statement is given to start before it is cancelled.
    static let running = Duration.milliseconds(300)
    /// How soon a cancelled call must return.
    static let promptly = Duration.milliseconds(200)

    /// Runs `attempt`, which returns what it saw and how long it took, once more when it took `bound`
    /// or longer (never when `bound` is `nil`: the time is not checked), and returns the last run's.
    /// A PostgreSQL cancel is a connection the server forks a process for, which the CI machine's
    /// load has delayed past 500 ms now and then; a call that waited for its statement would take
    /// seconds in both runs.
    static func timed<T>(within bound: Duration?, _ attempt: () async throws -> (T, Duration)) async rethrows -> (T, Duration) {
        let first = try await attempt()
        guard let bound, first.1 >= bound else { return first }
        return try await attempt()
    }

    /// Where a cancelled call runs.
    enum Place: CaseIterable, CustomStringConvertible {
        /// The suite's own threads (`TimingThreads.shared`), where PostgreSQL's and MySQL's calls
        /// wait for the server without a thread and SQLite's run inline.
        case ownThreads
        /// `CRUDThreads`, where every driver's call runs inline and blocks its thread.
        case crudThreads
        /// Swift's cooperative pool, which the suites beside this one can keep busy for seconds (starting
        /// servers, synchronous tests): how long a call there takes to return is not checked.
        case cooperativePool

        var isTimed: Bool { self != .cooperativePool }

        var description: String {
            switch self {
            case .ownThreads: "the suite's threads"
            case .crudThreads: "CRUDThreads"
            case .cooperativePool: "the cooperative pool"
            }
        }

        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
        var executor: any TaskExecutor {
            switch self {
            case .ownThreads: TimingThreads.shared
            case .crudThreads: TimingThreads.blocking
            case .cooperativePool: globalConcurrentExecutor
            }
        }
    }

    /// Runs `body` on the suite's own threads, where the test times its calls and cancels them: the
    /// times it takes are the library's, not a wait for one of Swift's cooperative threads (two
    /// here), which other suites block.
    static func onOwnThreads<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else { return try await body() }
        return try await withTaskExecutorPreference(TimingThreads.shared) { try await body() }
    }

    /// A task running `operation` at `place`.
    static func startTask<T: Sendable>(on place: Place = .ownThreads, _ operation: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else { return Task(operation: operation) }
        return Task(executorPreference: place.executor, operation: operation)
    }

    /// Starts the long statement in a task at `place`, cancels the task once the statement runs,
    /// and returns what the task threw and how long after the cancellation it returned.
    static func cancelMidStatement<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ backend: Backend, on place: Place) async throws
        -> (result: Result<[ConnectionNumber], any Error>, took: Duration) {
        try await cancelMidway(on: place) { try await db.sql(Self.longStatement(backend), ConnectionNumber.self) }
    }

    /// Starts `operation` in a task at `place`, cancels the task once it runs, and returns what the
    /// task threw and how long after the cancellation it returned.
    static func cancelMidway<T: Sendable>(on place: Place = .ownThreads, _ operation: @escaping @Sendable () async throws -> T) async throws
        -> (result: Result<T, any Error>, took: Duration) {
        let long = startTask(on: place, operation)
        try await Task.sleep(for: Self.running)
        let clock = ContinuousClock()
        let cancelled = clock.now
        long.cancel()
        let result = await long.result
        return (result, clock.now - cancelled)
    }

    @Test("cancelling a task stops its running statement within 200 ms with CancellationError, and the pool's next call works",
          arguments: Backend.all)
    func cancellingStopsTheStatement(_ backend: Backend) async throws {
        try await cancellingStopsTheStatement(backend.open(), backend)
    }

    func cancellingStopsTheStatement<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        for place in Place.allCases {
            let (result, took) = try await Self.timed(within: place.isTimed ? Self.promptly : nil) {
                try await Self.onOwnThreads { try await Self.cancelMidStatement(db, backend, on: place) }
            }
            #expect(throws: CancellationError.self, "on \(place)") { try result.get() }
            if place.isTimed { #expect(took < Self.promptly, "on \(place), the cancelled statement ran on for \(took)") }
        }
        // The connection went back usable.
        try await db.table(Course.self).insert(Course(id: 1, title: "after"))
        #expect(try await db.table(Course.self).count() == 1)
        try await db.shutdown()
    }

    @Test("a statement past the task's timeout stops within 200 ms with .timedOut, async and sync", arguments: Backend.all)
    func timeoutStopsTheStatement(_ backend: Backend) async throws {
        try await timeoutStopsTheStatement(backend.open(), backend)
    }

    func timeoutStopsTheStatement<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        let long = Self.longStatement(backend)
        let clock = ContinuousClock()
        for place in Place.allCases {
            let (error, took) = try await Self.timed(within: place.isTimed ? Self.running + Self.promptly : nil) {
                try await Self.startTask(on: place) { await Self.timingOut(db) { _ = try await db.sql(long, ConnectionNumber.self) } }.value
            }
            #expect((error as? CRUDSQLExeError)?.kind == .timedOut, "on \(place): \(String(describing: error))")
            if place.isTimed { #expect(took < Self.running + Self.promptly, "on \(place), the timed-out statement ran for \(took)") }
        }

        // Synchronous, on a thread of its own: blocking one of Swift's cooperative pool would hold
        // up the other backends' cases, whose calls resume there.
        let (syncError, syncTook) = try await Self.timed(within: Self.running + Self.promptly) {
            try await onThread {
                let syncStarted = clock.now
                let error = #expect(throws: CRUDSQLExeError.self) { try Self.runSync(db, long, timeout: Self.running) }
                return (error, clock.now - syncStarted)
            }
        }
        #expect(syncError?.kind == .timedOut)
        #expect(syncTook < Self.running + Self.promptly)

        // A statement within its timeout runs as ever, and the timeout ends with the scope.
        #expect(try await db.withStatementTimeout(.seconds(30)) { try await db.sql("SELECT 7 AS value", ConnectionNumber.self) }[0].value == 7)
        #expect(try await db.sql("SELECT 8 AS value", ConnectionNumber.self)[0].value == 8)
        try await db.shutdown()
    }

    @Test("async reads (select, count, first, a prepared lookup) over a view that runs for seconds are cancelled and time out within 200 ms",
          arguments: Backend.all)
    func readsStop(_ backend: Backend) async throws {
        try await readsStop(backend.open(), backend)
    }

    /// On PostgreSQL and MySQL these reads wait for the server in the task itself
    /// (`CRUDExecutor.awaiting`), not on a connection's queue: the cancellation reaches the server
    /// through the same interrupt.
    func readsStop<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS " + Self.longStatement(backend))
        let numbers = db.table(ConnectionNumber.self)
        let byValue = try numbers.prepared(matching: \.value)
        let reads: [(String, @Sendable () async throws -> Int)] = [
            ("select", { try await numbers.select().count }),
            ("count", { try await numbers.count() }),
            ("first", { try await numbers.first()?.value ?? 0 }),
            ("prepared first", { try await byValue.first(1)?.value ?? 0 }),
        ]
        for (name, read) in reads {
            let (result, took) = try await Self.timed(within: Self.promptly) { try await Self.onOwnThreads { try await Self.cancelMidway(read) } }
            #expect(throws: CancellationError.self, "\(name)") { try result.get() }
            #expect(took < Self.promptly, "the cancelled \(name) ran on for \(took)")

            let (error, timedTook) = try await Self.timed(within: Self.running + Self.promptly) {
                try await Self.onOwnThreads { await Self.timingOut(db) { _ = try await read() } }
            }
            #expect((error as? CRUDSQLExeError)?.kind == .timedOut, "\(name): \(String(describing: error))")
            #expect(timedTook < Self.running + Self.promptly, "the timed-out \(name) ran for \(timedTook)")
        }
        // The connections went back usable.
        #expect(try await db.sql("SELECT 8 AS value", ConnectionNumber.self)[0].value == 8)
        try await db.sql("DROP VIEW \(db.quote("ConnectionNumber"))")
        try await db.shutdown()
    }

    /// Runs `operation` with `db`'s statement timeout at `running`, and returns what it threw and how
    /// long it took, timed where the call runs: the task may wait for a thread before it gets there.
    static func timingOut<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ operation: () async throws -> Void) async
        -> (error: (any Error)?, took: Duration) {
        let clock = ContinuousClock()
        let started = clock.now
        do {
            try await db.withStatementTimeout(Self.running) { try await operation() }
            return (nil, clock.now - started)
        } catch {
            return (error, clock.now - started)
        }
    }

    static func runSync<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ sql: String, timeout: Duration) throws {
        _ = try db.withStatementTimeout(timeout) { try db.sql(sql, ConnectionNumber.self) }
    }

    @Test("a task already cancelled runs nothing: its inserts, counts and lookups throw CancellationError on every kind of thread, and no row is stored",
          arguments: Backend.all)
    func cancelledTaskRunsNothing(_ backend: Backend) async throws {
        try await cancelledTaskRunsNothing(backend.open())
    }

    /// On SQLite such a call runs on the task's own thread with no cancellation handler: the call
    /// looks at its task before each statement.
    func cancelledTaskRunsNothing<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        try await db.table(Course.self).insert(Course(id: 1, title: "stored before"))
        let byID = try db.table(Course.self).prepared(matching: \.id)
        for place in Place.allCases {
            let outcomes = try await Self.startTask(on: place) { () async -> [String: Result<Int, any Error>] in
                func outcome(_ call: () async throws -> Int) async -> Result<Int, any Error> {
                    do { return .success(try await call()) } catch { return .failure(error) }
                }
                withUnsafeCurrentTask { $0?.cancel() }
                return [
                    "insert": await outcome { try await db.table(Course.self).insert(Course(id: 2, title: "never stored")); return 0 },
                    "count": await outcome { try await db.table(Course.self).count() },
                    "lookup": await outcome { try await byID.first(1)?.id ?? 0 },
                ]
            }.value
            for (call, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
                #expect(throws: CancellationError.self, "\(call) on \(place)") { try outcome.get() }
            }
        }
        #expect(try await db.table(Course.self).select().map(\.id) == [1])
        try await db.shutdown()
    }

    @Test("a statement cancelled inside a transaction rolls the transaction back, and the next one commits", arguments: Backend.all)
    func cancellingRollsTheTransactionBack(_ backend: Backend) async throws {
        try await cancellingRollsTheTransactionBack(backend.open(), backend)
    }

    func cancellingRollsTheTransactionBack<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        let (result, took) = try await Self.timed(within: Self.promptly) { try await Self.onOwnThreads {
            let transaction = Self.startTask {
                try await db.transaction { tx in
                    try await tx.table(Course.self).insert(Course(id: 1, title: "never committed"))
                    _ = try await tx.sql(Self.longStatement(backend), ConnectionNumber.self)
                    try await tx.table(Course.self).insert(Course(id: 2, title: "never run"))
                }
            }
            try await Task.sleep(for: Self.running)
            let clock = ContinuousClock()
            let cancelled = clock.now
            transaction.cancel()
            let result = await transaction.result
            return (result, clock.now - cancelled)
        } }
        #expect(took < Self.promptly)
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await db.table(Course.self).count() == 0)
        try await db.transaction { tx in try await tx.table(Course.self).insert(Course(id: 3, title: "committed")) }
        #expect(try await db.table(Course.self).select().map(\.id) == [3])
        try await db.shutdown()
    }

    @Test("a call cancelled inside a transaction stops its own statement, not the transaction's stream on the same SQLite connection")
    func streamSurvivesACancelledNeighbour() async throws {
        // sqlite3_interrupt would stop every active statement of the connection, the stream's too, and
        // keep failing them until none is active; CRUD's interrupt stops the cancelled call's alone.
        let db = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        try await db.create(Course.self)
        try await db.table(Course.self).insert((1 ... 600).map { Course(id: $0, title: "course \($0)") })
        let seen = try await db.transaction { tx in
            var seen = 0
            for try await _ in tx.table(Course.self).order(by: \.id).select() {
                seen += 1
                guard seen == 10 else { continue }
                // A task of the transaction's, on its connection between two batches of the stream.
                let long = Task { try await tx.sql(Self.longStatement(.sqlite), ConnectionNumber.self) }
                try await Task.sleep(for: Self.running)
                long.cancel()
                let result = await long.result
                #expect(throws: CancellationError.self) { try result.get() }
            }
            return seen
        }
        #expect(seen == 600)
        try await db.shutdown()
    }

    @Test("the configuration's statement timeout applies to every call, and a task may lift it")
    func configurationTimeout() async throws {
        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite"), statementTimeout: Self.running))
        let error = await #expect(throws: CRUDSQLExeError.self) { try await db.sql(Self.longStatement(.sqlite), ConnectionNumber.self) }
        #expect(error?.kind == .timedOut)
        #expect(error?.msg.contains("timeout of 300.000 ms") == true)
        // Counting to three million takes SQLite longer than the timeout (0.75 s on this machine).
        let clock = ContinuousClock()
        let started = clock.now
        let lifted = try await db.withStatementTimeout(nil) {
            try await db.sql("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) AS value FROM c",
                             ConnectionNumber.self)
        }
        #expect(lifted[0].value == 3_000_000)
        #expect(clock.now - started > Self.running)
        try await db.shutdown()
    }
}

/// The threads of `CancellationTests`' timed calls, for the life of the test process as
/// `CRUDThreads.shared` is.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
enum TimingThreads {
    /// Where the tests time and cancel their calls, and PostgreSQL's and MySQL's calls await the
    /// server: only SQLite's statements block these threads, one per case at most, so the task
    /// that cancels a call never waits for a thread.
    static let shared = TestThreads(count: 16, name: "TimingThreads")
    /// Where calls block their thread, one per case at most: more threads than the suite has cases.
    static let blocking = CRUDThreads(count: 16)
}

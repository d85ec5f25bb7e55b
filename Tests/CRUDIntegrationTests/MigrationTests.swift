@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

/// An error a migration step throws on purpose.
struct StepFailure: Error, Equatable {}

@Suite("migrations")
struct MigrationTests {
    /// A three-version history; `runs` counts each step's runs, `failing` makes the third throw
    /// after it has created its table.
    static func history<C: DatabaseConfigurationProtocol>(_: C.Type, runs: Collector<String>, versions: Int = 3,
                                                         failing: Bool = false) -> CRUDMigrator<C> {
        var migrator = CRUDMigrator<C>()
        migrator.register("v1: cycles") { db in
            runs.append("v1")
            try db.create(Cycle.self)
        }
        guard versions > 1 else { return migrator }
        migrator.register("v2: color index, first cycles") { db in
            runs.append("v2")
            try db.table(Cycle.self).index(\.color)
            try db.table(Cycle.self).insert([Cycle(id: 1, color: "red", gears: 3), Cycle(id: 2, color: "blue", gears: 21)])
        }
        guard versions > 2 else { return migrator }
        migrator.register("v3: readings, one gear more") { db in
            runs.append("v3")
            try db.create(Reading.self)
            try db.sql("UPDATE \(db.quote(Cycle.self)) SET \(db.quote("gears")) = \(db.quote("gears")) + 1")
            if failing { throw StepFailure() }
        }
        return migrator
    }

    @Test("a three-version history: applied to an empty database, to one at version 1, and twice", arguments: Backend.all)
    func history(_ backend: Backend) throws { try history(backend.open()) }

    func history<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        let runs = Collector<String>()
        #expect(try Self.history(C.self, runs: runs, versions: 1).migrate(db) == ["v1: cycles"])
        #expect(try Self.history(C.self, runs: runs).migrate(db) == ["v2: color index, first cycles", "v3: readings, one gear more"],
                "a database at version 1 gets versions 2 and 3")
        #expect(try Self.history(C.self, runs: runs).migrate(db).isEmpty, "applying again does nothing")
        #expect(runs.items == ["v1", "v2", "v3"])
        #expect(try Self.history(C.self, runs: runs).appliedMigrations(db)
            == ["v1: cycles", "v2: color index, first cycles", "v3: readings, one gear more"])
        #expect(try db.table(Cycle.self).order(by: \.id).select().map(\.gears) == [4, 22])
        #expect(try db.table(Reading.self).count() == 0)

        let fresh = Database(configuration: configuration)
        try fresh.sql("DROP TABLE \(fresh.quote(Cycle.self))")
        try fresh.sql("DROP TABLE \(fresh.quote(Reading.self))")
        try fresh.sql("DROP TABLE \(fresh.quote("crud_migrations"))")
        #expect(try Self.history(C.self, runs: runs).migrate(fresh).count == 3, "an empty database gets all three")
        #expect(try fresh.table(Cycle.self).count() == 2)
    }

    @Test("eight migrators at once, four threads and four tasks, on a fresh database: each step runs exactly once, the others wait and skip it",
          .timeLimit(.minutes(2)), arguments: Backend.all)
    func concurrentMigrators(_ backend: Backend) async throws { try await concurrentMigrators(backend.open()) }

    func concurrentMigrators<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let runs = Collector<String>()
        let applied = Collector<[String]>()
        let failures = Collector<String>()
        let migrator = Self.history(C.self, runs: runs)
        // Each migrator on a Database value of its own, as separate parts of a program would be.
        let threads = (0 ..< 4).map { _ in
            Task {
                try await onThread {
                    do { applied.append(try migrator.migrate(Database(configuration: configuration))) } catch { failures.append("\(error)") }
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0 ..< 4 {
                group.addTask {
                    do { applied.append(try await migrator.migrate(Database(configuration: configuration))) } catch { failures.append("\(error)") }
                }
            }
        }
        for thread in threads { try await thread.value }
        #expect(failures.items.isEmpty, "\(failures.items.prefix(2))")
        #expect(runs.items.sorted() == ["v1", "v2", "v3"], "each step ran once: \(runs.items)")
        #expect(applied.items.flatMap { $0 }.sorted() == ["v1: cycles", "v2: color index, first cycles", "v3: readings, one gear more"],
                "each step was applied by one migrator: \(applied.items)")
        let db = Database(configuration: configuration)
        #expect(try await db.table(Cycle.self).order(by: \.id).select().map(\.gears) == [4, 22])
    }

    @Test("migrators in three processes and a thread at once: each step runs exactly once", .timeLimit(.minutes(2)),
          arguments: Backend.all)
    func migratorsInProcesses(_ backend: Backend) async throws {
        let (configuration, arguments) = try backend.openForProbe()
        try await migratorsInProcesses(configuration, arguments)
    }

    func migratorsInProcesses<C: DatabaseConfigurationProtocol>(_ configuration: C, _ arguments: [String]) async throws {
        let probe = try BuiltProgram("crud-test-probe")
        let go = Backend.temporaryFile("go")
        let runs = Collector<String>()
        // The probes wait for `go`, so that they and the thread below start at once; they leave by
        // themselves a minute later if it never comes.
        let processes = (0 ..< 3).map { _ in Task { try await onThread { try probe.run(["migrate", go] + arguments) } } }
        let thread = Task {
            try await onThread {
                guard FileManager.default.createFile(atPath: go, contents: nil) else { throw TestBuildError(description: "cannot create \(go)") }
                return try Self.history(C.self, runs: runs).migrate(Database(configuration: configuration))
            }
        }
        var applied = try await thread.value
        var ran = runs.items
        for process in processes {
            let (status, output) = try await process.value
            #expect(status == 0, "\(output)")
            for line in output.split(separator: "\n") {
                if line.hasPrefix("ran ") { ran.append(String(line.dropFirst(4))) }
                if line.hasPrefix("applied: "), line.count > 9 { applied += line.dropFirst(9).components(separatedBy: "; ") }
            }
        }
        #expect(ran.sorted() == ["v1", "v2", "v3"], "each step ran once: \(ran)")
        #expect(applied.sorted() == ["v1: cycles", "v2: color index, first cycles", "v3: readings, one gear more"], "\(applied)")
        #expect(try await Database(configuration: configuration).table(Cycle.self).order(by: \.id).select().map(\.gears) == [4, 22])
    }

    @Test("a step that throws is rolled back whole; the versions before it stay", arguments: Backend.all)
    func failingStep(_ backend: Backend) throws { try failingStep(backend.open(), backend) }

    func failingStep<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        let runs = Collector<String>()
        guard backend != .mysql else {
            // Each schema change commits at once: the failed step's table and update stay, and the error says so.
            #expect(throws: CRUDMigrationError.stepNotUndone(name: "v3: readings, one gear more", database: "MariaDB", underlying: StepFailure())) {
                try Self.history(C.self, runs: runs, failing: true).migrate(db)
            }
            #expect(try Self.history(C.self, runs: runs).appliedMigrations(db) == ["v1: cycles", "v2: color index, first cycles"])
            #expect(try db.table(Cycle.self).order(by: \.id).select().map(\.gears) == [4, 22])
            #expect(try db.withConnection { try $0.columnNames(ofTable: "Reading") } != nil)
            #expect(try Self.history(C.self, runs: runs).migrate(db) == ["v3: readings, one gear more"], "able to run again, it applies")
            return
        }
        #expect(throws: StepFailure()) { try Self.history(C.self, runs: runs, failing: true).migrate(db) }
        #expect(try Self.history(C.self, runs: runs).appliedMigrations(db) == ["v1: cycles", "v2: color index, first cycles"])
        #expect(try db.table(Cycle.self).order(by: \.id).select().map(\.gears) == [3, 21], "v3's update is undone")
        #expect(try db.withConnection { try $0.columnNames(ofTable: "Reading") } == nil, "v3's table is gone")
        #expect(try Self.history(C.self, runs: runs).migrate(db) == ["v3: readings, one gear more"], "fixed, it applies")
    }

    @Test("a name registered twice, and an applied step no longer registered in its place, are refused before anything runs",
          arguments: Backend.all)
    func refusals(_ backend: Backend) throws { try refusals(backend.open()) }

    func refusals<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        let runs = Collector<String>()
        var twice = Self.history(C.self, runs: runs, versions: 1)
        twice.register("v1: cycles") { _ in runs.append("again") }
        #expect(throws: CRUDMigrationError.duplicateName("v1: cycles")) { try twice.migrate(db) }
        #expect(runs.items.isEmpty)
        #expect(try twice.appliedMigrations(db).isEmpty)

        try Self.history(C.self, runs: runs, versions: 2).migrate(db)
        var renamed = Self.history(C.self, runs: runs, versions: 1)
        renamed.register("v2: renamed") { _ in runs.append("renamed") }
        let refused = #expect(throws: CRUDMigrationError.self) { try renamed.migrate(db) }
        #expect(refused == .notRegistered(name: "v2: color index, first cycles", position: 1))
        #expect(runs.items == ["v1", "v2"])
    }
}

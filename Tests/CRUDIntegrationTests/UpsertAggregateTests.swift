import CRUD
import Foundation
import Testing

@Suite("upsert and aggregates")
struct UpsertAggregateTests {
    @Test("upsert on the primary key and on a unique constraint: replace, ignore, update chosen columns; same on every backend",
          arguments: Backend.all)
    func upsert(_ backend: Backend) async throws { try await upsert(backend.open()) }

    func upsert<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = try await ObservationTests.database(configuration)
        let changes = Collector<String>()
        db.didUpdate = { table, id, kind in
            if table == "Cycle" { changes.append("\(kind) \(id)") }
        }
        let cycles = db.table(Cycle.self)
        try await cycles.insert([Cycle(id: 1, color: "red", gears: 1), Cycle(id: 2, color: "blue", gears: 2), Cycle(id: 3, color: "green", gears: 3)])

        #expect(try await cycles.upsert([Cycle(id: 1, color: "red", gears: 9), Cycle(id: 4, color: "white", gears: 4)], onConflict: \.id) == 2)
        #expect(try await cycles.upsert(Cycle(id: 2, color: "ignored", gears: 7), onConflict: \.id, do: .ignore) == 0)
        #expect(try await cycles.upsert(Cycle(id: 3, color: "not set", gears: 30), onConflict: \.id, do: .update(\.gears)) == 1)
        #expect(try await cycles.upsert(Cycle(id: 50, color: "white", gears: 4), onConflict: \.color, \.gears, do: .ignore) == 0,
                "the unique (color, gears) pair is taken by row 4")
        #expect(try await cycles.upsert([Cycle(id: 5, color: "first", gears: 5), Cycle(id: 5, color: "second", gears: 5)], onConflict: \.id) == 2,
                "a later row of the same key wins")

        let rows = try await cycles.order(by: \.id).select().map { "\($0.id) \($0.color) \($0.gears)" }
        #expect(rows == ["1 red 9", "2 blue 2", "3 green 30", "4 white 4", "5 second 5"])

        let before = try await cycles.count()
        let notUnique = try #require(throws: CRUDSQLExeError.self) {
            try cycles.upsert([Cycle(id: 6, color: "a", gears: 6), Cycle(id: 7, color: "b", gears: 2)], onConflict: \.gears)
        }
        #expect(notUnique.kind == .conflictTargetNotUnique)
        #expect(notUnique.msg.contains("(gears)") && notUnique.msg.contains("unique"))
        #expect(try await cycles.count() == before, "nothing written")

        try await ObservationTests.settle(db)
        #expect(changes.items == ["insert 1", "insert 2", "insert 3", "update 1", "insert 4", "update 3", "insert 5", "update 5"])
    }

    @Test("upsert by the key of a row whose other unique column collides too: the row is updated on every backend; a new key taking another row's unique value fails",
          arguments: Backend.all)
    func upsertWithAnotherUniqueKey(_ backend: Backend) async throws { try await upsertWithAnotherUniqueKey(backend.open()) }

    func upsertWithAnotherUniqueKey<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Label.self)
        let labels = db.table(Label.self)
        try await labels.insert(Label(id: 1, name: "a", n: 1))
        #expect(try await labels.upsert(Label(id: 1, name: "a", n: 2), onConflict: \.id) == 1)
        #expect(try await labels.upsert(Label(id: 1, name: "a", n: 9), onConflict: \.id, do: .ignore) == 0, "ignored rows do not count")
        #expect(try await labels.select().map { $0 } == [Label(id: 1, name: "a", n: 2)], "updated once, then kept")
        let taken = await #expect(throws: CRUDSQLExeError.self) { try await labels.upsert(Label(id: 2, name: "a", n: 3), onConflict: \.id) }
        #expect(taken?.kind == .uniqueViolation, "\(String(describing: taken))")
        #expect(try await labels.count() == 1)
    }

    @Test("sum, min, max, avg typed by the column, after where, nil over no rows; exists()", arguments: Backend.all)
    func aggregates(_ backend: Backend) async throws { try await aggregates(backend.open()) }

    func aggregates<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Reading.self)
        let readings = db.table(Reading.self)
        try await readings.insert([
            Reading(id: 1, value: 2.5, label: "b"), Reading(id: 2, value: nil, label: "ä"),
            Reading(id: 3, value: -1.0, label: "a"), Reading(id: 4, value: 10.0, label: "c"),
        ])
        let total: Int? = try await readings.sum(\.id)
        #expect(total == 10)
        let smallest: Double? = try await readings.min(\.value)
        #expect(smallest == -1.0)
        #expect(try await readings.max(\.value) == 10.0)
        #expect(try await readings.sum(\.value) == 11.5, "NULL is skipped")
        #expect(try await readings.avg(\.value) == 11.5 / 3)
        #expect(try await readings.avg(\.id) == 2.5, "an integer column's mean is not truncated")
        #expect(try await readings.min(\.label) == "a")
        #expect(try await readings.where(\Reading.id > 1).sum(\.id) == 9)
        #expect(try await readings.where(\Reading.id > 2).max(\.label) == "c")
        #expect(try await readings.order(by: \.id).limit(2).sum(\.id) == 3, "over the limited rows")
        #expect(try await readings.where(\Reading.id > 100).sum(\.id) == nil)
        #expect(try await readings.where(\Reading.id > 100).avg(\.value) == nil)
        #expect(try await readings.where(\Reading.id == 2).max(\.value) == nil, "only NULLs")
        #expect(try await readings.where(\Reading.label == "ä").exists())
        #expect(try await !readings.where(\Reading.label == "z").exists())
    }

    @Test("grouped counts and sums, typed by the columns, after where; NULLs grouped under nil", arguments: Backend.all)
    func grouped(_ backend: Backend) async throws { try await grouped(backend.open()) }

    func grouped<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Pupil.self, policy: [.dropTable, .shallow])
        let pupils = db.table(Pupil.self)
        try await pupils.insert([
            Pupil(id: 1, name: "Ann", nickname: "A"), Pupil(id: 2, name: "Ann", nickname: nil), Pupil(id: 3, name: "Bo", nickname: "A"),
            Pupil(id: 4, name: "Cy", nickname: nil), Pupil(id: 5, name: "Ann", nickname: "Z"),
        ])
        let byName: [String: Int] = try await pupils.count(groupedBy: \.name)
        #expect(byName == ["Ann": 3, "Bo": 1, "Cy": 1])
        let byNickname: [String?: Int] = try await pupils.count(groupedBy: \.nickname)
        #expect(byNickname == ["A": 2, nil: 2, "Z": 1])
        let idSums: [String: Int] = try await pupils.sum(\.id, groupedBy: \.name)
        #expect(idSums == ["Ann": 8, "Bo": 3, "Cy": 4])
        #expect(try await pupils.where(\Pupil.id > 1).sum(\.id, groupedBy: \.name) == ["Ann": 7, "Bo": 3, "Cy": 4])
        #expect(try await pupils.sum(\.id, groupedBy: \.id) == [1: 1, 2: 2, 3: 3, 4: 4, 5: 5], "a column grouped by itself")
        #expect(try await pupils.where(\Pupil.id > 100).count(groupedBy: \.name).isEmpty)
        #expect(try Self.countByName(pupils) == byName, "the synchronous form")
    }

    static func countByName<C: DatabaseConfigurationProtocol>(_ pupils: Table<Pupil, Database<C>>) throws -> [String: Int] {
        try pupils.count(groupedBy: \.name)
    }
}

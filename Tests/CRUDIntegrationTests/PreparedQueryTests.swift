import CRUD
import Foundation
import Testing

@Suite("prepared queries")
struct PreparedQueryTests {
    static func cycles<C: DatabaseConfigurationProtocol>(_ configuration: C) throws -> Database<C> {
        let db = Database(configuration: configuration)
        try db.create(Cycle.self, policy: .dropTable)
        try db.table(Cycle.self).insert([
            Cycle(id: 1, color: "red", gears: 3), Cycle(id: 2, color: "blue", gears: 21), Cycle(id: 3, color: "red", gears: 7),
            Cycle(id: 4, color: "red", gears: 1), Cycle(id: 5, color: "green", gears: 9),
        ])
        return db
    }

    @Test("first, select and forEach by a key, with the chain's where, order and limit; run again and again", arguments: Backend.all)
    func lookups(_ backend: Backend) throws { try lookups(backend.open()) }

    func lookups<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.cycles(configuration)
        let byID = try db.table(Cycle.self).prepared(matching: \.id)
        #expect(try byID.first(2) == Cycle(id: 2, color: "blue", gears: 21))
        #expect(try byID.first(99) == nil)
        #expect(try byID.select(3).map(\.color) == ["red"])
        for round in 0 ..< 300 {
            let id = round % 6 + 1
            #expect(try byID.first(id)?.id == (id <= 5 ? id : nil))
        }

        // The chain's own values bind after the key: gears > 2, ordered, at most 2.
        let redOnes = try db.table(Cycle.self).order(by: \.gears).limit(2).where(\Cycle.gears > 2).prepared(matching: \.color)
        #expect(try redOnes.select("red").map(\.id) == [1, 3])
        #expect(try redOnes.first("red")?.id == 1)
        #expect(try redOnes.select("green").map(\.id) == [5])
        #expect(try redOnes.select("black").isEmpty)
        var seen: [Int] = []
        try redOnes.forEach("red") { seen.append($0.id) }
        #expect(seen == [1, 3])
        // A limit with an offset, in the order the chain gives.
        let skipping = try db.table(Cycle.self).order(by: \.gears).limit(1, skip: 1).prepared(matching: \.color)
        #expect(try skipping.first("red")?.id == 1, "gears 1, 3, 7: the second is id 1")
    }

    @Test("a transaction's runs see its own writes; a query made after another is gone gets its own statement", arguments: Backend.all)
    func transactionsAndSlots(_ backend: Backend) throws { try transactionsAndSlots(backend.open()) }

    func transactionsAndSlots<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.cycles(configuration)
        let byID = try db.table(Cycle.self).prepared(matching: \.id)
        #expect(try byID.first(1)?.gears == 3)
        try db.transaction {
            try db.table(Cycle.self).where(\Cycle.id == 1).update(Cycle(id: 1, color: "red", gears: 30))
            #expect(try byID.first(1)?.gears == 30, "runs on the transaction's connection")
        }
        #expect(try byID.first(1)?.gears == 30)

        // Slots are reused once a query goes; the statement kept for the old one is not taken.
        for _ in 0 ..< 5 {
            let byColor = try db.table(Cycle.self).order(by: \.id).prepared(matching: \.color)
            #expect(try byColor.select("red").map(\.id) == [1, 3, 4])
            let byGears = try db.table(Cycle.self).prepared(matching: \.gears)
            #expect(try byGears.select(21).map(\.id) == [2])
        }
    }

    @Test("a nil key, a chain with joins, a key path that names no column and a chain mistake are refused", arguments: Backend.all)
    func refusals(_ backend: Backend) throws { try refusals(backend.open()) }

    func refusals<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self, policy: .dropTable)
        try db.table(Pupil.self).insert([Pupil(id: 1, name: "Lars", nickname: nil), Pupil(id: 2, name: "Zoë", nickname: "Z")])
        let byNickname = try db.table(Pupil.self).prepared(matching: \.nickname)
        #expect(try byNickname.first("Z")?.id == 2)
        let error = #expect(throws: CRUDSQLGenError.self) { try byNickname.first(nil) }
        #expect(error?.msg.contains("IS NULL") == true, "\(error?.msg ?? "")")
        #expect(try db.table(Pupil.self).where(\Pupil.nickname == nil).select().map(\.id) == [1], "the chain says IS NULL")

        try db.create(Grade.self, policy: .dropTable)
        let joined = #expect(throws: CRUDSQLGenError.self) {
            try db.table(Pupil.self).join(\.grades, on: \.id, equals: \.pupilId).prepared(matching: \.id)
        }
        #expect(joined?.msg.contains("joins") == true)
        #expect(throws: CRUDSQLGenError.self) { try db.table(Pupil.self).prepared(matching: \.name.count) }
        #expect(throws: CRUDSQLGenError.self) { try db.table(Pupil.self).limit(-1).prepared(matching: \.id) }
    }

    @Test("the async forms, from many tasks at once over the pool", arguments: Backend.all)
    func async(_ backend: Backend) async throws { try await async(backend.open()) }

    func async<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = try Self.cycles(configuration)
        let byID = try db.table(Cycle.self).prepared(matching: \.id)
        let byColor = try db.table(Cycle.self).order(by: \.id).prepared(matching: \.color)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0 ..< 8 {
                group.addTask { () async throws -> Void in
                    for round in 0 ..< 50 {
                        let id = (task + round) % 5 + 1
                        let found = try await byID.first(id)
                        #expect(found?.id == id)
                        let red = try await byColor.select("red")
                        #expect(red.map(\.id) == [1, 3, 4])
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

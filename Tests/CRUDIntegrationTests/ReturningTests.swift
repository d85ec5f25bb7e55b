import CRUD
import Foundation
import Testing

@Suite("returning")
struct ReturningTests {
    @Test("returning(…, insert:) and where(…).returning(…, update:), as the README's database-specific part shows them", arguments: Backend.all)
    func readmeExample(_ backend: Backend) throws { try readmeExample(backend.open(), backend) }

    func readmeExample<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.sql("DROP TABLE IF EXISTS \(db.quote(ReturningItem.self))")
        try db.sql("CREATE TABLE \(db.quote(ReturningItem.self)) (id UUID PRIMARY KEY, def int DEFAULT 42)")
        let table = db.table(ReturningItem.self)
        // returning inserts
        do {
            let item = ReturningItem(id: UUID())
            let def = try table.returning(\.def, insert: item, ignoreKeys: \.def)
            #expect(def == 42)
        }
        do {
            let items = [ReturningItem(id: UUID()),
                         ReturningItem(id: UUID()),
                         ReturningItem(id: UUID())]
            let defs = try table.returning(\.def, insert: items, ignoreKeys: \.def)
            #expect(defs == [42, 42, 42])
        }
        do {
            let id = UUID()
            let item = ReturningItem(id: id, def: 42)
            let id0 = try table.returning(\.id, insert: item)
            #expect(id0 == id)
        }
        do {
            let items = [ReturningItem(id: UUID()),
                         ReturningItem(id: UUID()),
                         ReturningItem(id: UUID())]
            let defs = try table.returning(insert: items, ignoreKeys: \.def)
            #expect(defs.map { $0.id } == items.map { $0.id })
            #expect(defs.compactMap { $0.def }.count == defs.count)
            let one = ReturningItem(id: UUID(), def: 5)
            let stored = try table.returning(insert: one, ignoreKeys: \.def)
            #expect(stored.id == one.id && stored.def != nil && stored.def != 5, "the database's value, not the left-out one")
            #expect(try table.returning(insert: ReturningItem(id: UUID(), def: 8), setKeys: \.id).def == stored.def,
                    "only the id was written; the rest is the database's default")
        }
        // returning update
        do {
            let id = UUID()
            var item = ReturningItem(id: id)
            try table.insert(item, ignoreKeys: \.def)
            item.def = 300
            guard backend != .mysql else {
                try expectNoUpdateReturning(on: table.where(\ReturningItem.id == id), item)
                #expect(try table.where(\ReturningItem.id == id).select().map(\.def) == [42], "nothing was updated")
                return
            }
            let item0 = try table
                .where(\ReturningItem.id == id)
                .returning(\.def, update: item, ignoreKeys: \.id)
            #expect(item0.count == 1)
            #expect(item.def == item0.first)
        }
        #expect(try table.where(\ReturningItem.def == 999).returning(\.def, update: ReturningItem(id: UUID(), def: 1), setKeys: \.def).isEmpty)
        #expect(throws: CRUDSQLGenError.self) { try table.returning(\.id.uuidString, insert: ReturningItem(id: UUID())) }
    }

    @Test("the async forms of returning, with every key form", arguments: Backend.all)
    func asyncForms(_ backend: Backend) async throws { try await asyncForms(backend.open(), backend) }

    func asyncForms<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.sql("CREATE TABLE \(db.quote(ReturningItem.self)) (id UUID PRIMARY KEY, def int DEFAULT 42)")
        let table = db.table(ReturningItem.self)
        #expect(try await table.returning(\.def, insert: ReturningItem(id: UUID()), ignoreKeys: \.def) == 42)
        #expect(try await table.returning(\.def, insert: [ReturningItem(id: UUID()), ReturningItem(id: UUID())], ignoreKeys: \.def) == [42, 42])
        #expect(try await table.returning(\.def, insert: ReturningItem(id: UUID()), setKeys: \.id) == 42)
        let id = UUID()
        #expect(try await table.returning(\.id, insert: ReturningItem(id: id, def: 7)) == id)
        let rows = try await table.returning(insert: [ReturningItem(id: UUID())], ignoreKeys: \.def)
        #expect(rows.map(\.def) == [42])
        #expect(try await table.returning(insert: ReturningItem(id: UUID(), def: 9)).def == 9)
        #expect(try await table.returning(insert: ReturningItem(id: UUID(), def: 9), ignoreKeys: \.def).def == 42)
        #expect(try await table.returning(insert: ReturningItem(id: UUID(), def: 9), setKeys: \.id).def == 42)
        guard backend != .mysql else {
            await #expect(throws: CRUDSQLGenError.self) {
                try await table.where(\ReturningItem.id == id).returning(\.def, update: ReturningItem(id: id, def: 300), ignoreKeys: \.id)
            }
            #expect(try await table.where(\ReturningItem.id == id).select().map(\.def) == [7])
            return
        }
        let updated = try await table.where(\ReturningItem.id == id).returning(\.def, update: ReturningItem(id: id, def: 300), ignoreKeys: \.id)
        #expect(updated == [300])
        #expect(try await table.where(\ReturningItem.id == id).returning(\.def, update: ReturningItem(id: id, def: 301), setKeys: \.def) == [301])
        #expect(try await table.count() == 9)
    }

    @Test("a returning insert that collides is a unique violation, and the same statement then works again",
          .timeLimit(.minutes(1)), arguments: Backend.all)
    func collision(_ backend: Backend) throws { try collision(backend.open()) }

    func collision<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.sql("CREATE TABLE \(db.quote(ReturningItem.self)) (id UUID PRIMARY KEY, def int DEFAULT 42)")
        let table = db.table(ReturningItem.self)
        let first = ReturningItem(id: UUID())
        #expect(try table.returning(\.def, insert: first, ignoreKeys: \.def) == 42)
        let error = #expect(throws: CRUDSQLExeError.self) { try table.returning(\.def, insert: first, ignoreKeys: \.def) }
        #expect(error?.kind == .uniqueViolation)
        // MariaDB reports the collision after describing the result; the statement must not wait for rows.
        #expect(try table.returning(\.def, insert: ReturningItem(id: UUID()), ignoreKeys: \.def) == 42)
        #expect(try table.count() == 2)
    }

    /// MariaDB and MySQL have no UPDATE … RETURNING: every form of `returning(…, update:)` says so
    /// before it writes anything.
    func expectNoUpdateReturning<Query: UpdateAble>(on query: Query, _ item: ReturningItem) throws where Query.OverAllForm == ReturningItem {
        let forms: [() throws -> [Int?]] = [
            { try query.returning(\.def, update: item) },
            { try query.returning(\.def, update: item, ignoreKeys: \.id) },
            { try query.returning(\.def, update: item, setKeys: \.def) },
        ]
        for form in forms {
            let error = #expect(throws: CRUDSQLGenError.self) { try form() }
            #expect(error?.msg.contains("MariaDB has no UPDATE … RETURNING") == true)
        }
    }
}

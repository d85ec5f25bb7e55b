import CRUD
import Foundation
import Testing

@Suite("returning")
struct ReturningTests {
    @Test("returning(…, insert:) and where(…).returning(…, update:), as the README's database-specific part shows them", arguments: Backend.all)
    func readmeExample(_ backend: Backend) throws { try readmeExample(backend.open()) }

    func readmeExample<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.sql("DROP TABLE IF EXISTS \(ReturningItem.CRUDTableName)")
        try db.sql("CREATE TABLE \(ReturningItem.CRUDTableName) (id UUID PRIMARY KEY, def int DEFAULT 42)")
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
        }
        // returning update
        do {
            let id = UUID()
            var item = ReturningItem(id: id)
            try table.insert(item, ignoreKeys: \.def)
            item.def = 300
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
    func asyncForms(_ backend: Backend) async throws { try await asyncForms(backend.open()) }

    func asyncForms<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.sql("CREATE TABLE \(ReturningItem.CRUDTableName) (id UUID PRIMARY KEY, def int DEFAULT 42)")
        let table = db.table(ReturningItem.self)
        #expect(try await table.returning(\.def, insert: ReturningItem(id: UUID()), ignoreKeys: \.def) == 42)
        #expect(try await table.returning(\.def, insert: [ReturningItem(id: UUID()), ReturningItem(id: UUID())], ignoreKeys: \.def) == [42, 42])
        #expect(try await table.returning(\.def, insert: ReturningItem(id: UUID()), setKeys: \.id) == 42)
        let id = UUID()
        #expect(try await table.returning(\.id, insert: ReturningItem(id: id, def: 7)) == id)
        let rows = try await table.returning(insert: [ReturningItem(id: UUID())], ignoreKeys: \.def)
        #expect(rows.map(\.def) == [42])
        #expect(try await table.returning(insert: ReturningItem(id: UUID(), def: 9)).def == 9)
        let updated = try await table.where(\ReturningItem.id == id).returning(\.def, update: ReturningItem(id: id, def: 300), ignoreKeys: \.id)
        #expect(updated == [300])
        #expect(try await table.where(\ReturningItem.id == id).returning(\.def, update: ReturningItem(id: id, def: 301), setKeys: \.def) == [301])
        #expect(try await table.count() == 7)
    }
}

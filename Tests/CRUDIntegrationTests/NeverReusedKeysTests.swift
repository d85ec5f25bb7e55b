import CRUD
import CRUDSQLite
import Foundation
import Testing

/// A ticket whose key, once deleted, names no other ticket: its model says so once.
struct KeyedTicket: CRUDModel, Equatable {
    let id: Int
    var title: String
    static let crudNeverReusesKeys = true
}

/// `crudNeverReusesKeys`: the model states it, and `create`, a frozen step (as `crud-migrations`
/// writes it), the migrator and `checkSchema` all carry it. SQLite gave a deleted last row's key to
/// the next row of a table its generated step had made.
@Suite("keys never reused")
struct NeverReusedKeysTests {
    static let columns = [CRUDSchemaColumn("id", .integer(bits: 64, signed: true)), CRUDSchemaColumn("title", .text)]
    static let created = CRUDSchemaMigration("0001 tickets", changes: [
        .createTable(CRUDSchemaTable("KeyedTicket", columns: columns, primaryKey: "id", neverReusesKeys: true)),
    ], schema: CRUDSchema([CRUDSchemaTable("KeyedTicket", columns: columns, primaryKey: "id", neverReusesKeys: true)]))

    /// Adds a ticket, its key made by the database.
    static func add<C: DatabaseConfigurationProtocol>(_ title: String, to db: Database<C>) throws -> Int {
        try db.table(KeyedTicket.self).returning(insert: KeyedTicket(id: 0, title: title), ignoreKeys: \.id).id
    }

    /// Deletes the newest ticket and adds one: the new one's key is not the deleted one's.
    static func expectNoReuse<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ label: String) throws {
        let last = try #require(try db.table(KeyedTicket.self).order(descending: \.id).first())
        try db.table(KeyedTicket.self).where(\KeyedTicket.id == last.id).delete()
        let next = try add("after \(last.id)", to: db)
        #expect(next > last.id, "\(label): the deleted ticket's key \(last.id) was given again (\(next))")
    }

    @Test("a database migrated by a generated step never reuses a deleted row's key, and its check passes", arguments: Backend.all)
    func migrated(_ backend: Backend) throws { try migrated(backend.open()) }

    func migrated<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        var migrator = CRUDMigrator<C>()
        migrator.register(Self.created)
        try migrator.migrate(db)
        for title in ["one", "two", "three"] { _ = try Self.add(title, to: db) }
        try Self.expectNoReuse(db, "migrated")
        try Self.expectNoReuse(db, "migrated, again")
        try db.checkSchema(try #require(migrator.schema))
        try db.checkSchema([KeyedTicket.self])
    }

    @Test("create(_:) of the model makes the table as the step does", arguments: Backend.all)
    func created(_ backend: Backend) throws { try created(backend.open()) }

    func created<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(KeyedTicket.self, policy: .dropTable)
        for title in ["one", "two"] { _ = try Self.add(title, to: db) }
        try Self.expectNoReuse(db, "created")
        try db.checkSchema([KeyedTicket.self])
    }

    @Test("on SQLite, a table made without it fails the check, and a step turning it on rebuilds it, keeping its rows")
    func turnedOn() throws {
        let db = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        let plain = CRUDSchemaTable("KeyedTicket", columns: Self.columns, primaryKey: "id")
        let first = CRUDSchemaMigration("0001 tickets", changes: [.createTable(plain)], schema: CRUDSchema([plain]))
        var migrator = CRUDMigrator<SQLiteDatabaseConfiguration>()
        migrator.register(first)
        try migrator.migrate(db)
        for title in ["one", "two", "three"] { _ = try Self.add(title, to: db) }
        let mismatch = #expect(throws: CRUDSchemaMismatchError.self) { try db.checkSchema([KeyedTicket.self]) }
        #expect(mismatch?.differences == [.reusesKeys(table: "KeyedTicket")], "\(String(describing: mismatch))")
        // What SQLite does without it: the deleted last key comes again.
        try db.table(KeyedTicket.self).where(\KeyedTicket.id == 3).delete()
        #expect(try Self.add("again", to: db) == 3)

        var marked = plain
        marked.neverReusesKeys = true
        migrator.register(CRUDSchemaMigration("0002 keys never reused", changes: [.setNeverReusesKeys(true, table: "KeyedTicket")],
                                              schema: CRUDSchema([marked])))
        try migrator.migrate(db)
        #expect(try db.table(KeyedTicket.self).order(by: \.id).select().map(\.title) == ["one", "two", "again"])
        try Self.expectNoReuse(db, "rebuilt")
        try db.checkSchema([KeyedTicket.self])
        try db.checkSchema(try #require(migrator.schema))
    }
}

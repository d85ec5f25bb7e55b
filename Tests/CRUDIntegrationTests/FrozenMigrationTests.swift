import CRUD
import Foundation
import Testing

/// The rows of the history's tables as each release's models read them.
struct HistoryUser: CRUDModel, Equatable {
    var id: Int
    var name: String
    var email: String

    static let crudConstraints: [CRUDConstraint<HistoryUser>] = [.unique(\.email)]
}

struct HistoryTodoV1: CRUDModel, TableNameProvider {
    static let tableName = "HistoryTodo"
    var id: Int
    var userId: Int
    var name: String
    var done: Bool
    var priority: String?
    var notes: String?
}

struct HistoryTodoV2: CRUDModel, TableNameProvider {
    static let tableName = "HistoryTodo"
    var id: Int
    var userId: Int
    var title: String
    var done: Bool
    var priority: String?
    var notes: String?
    var dueAt: Date?
    var position: Int
}

struct HistoryTodoV3: CRUDModel, TableNameProvider, Equatable {
    static let tableName = "HistoryTodo"
    var id: Int
    var userId: Int
    var title: String
    var done: Bool
    var priority: Int?
    var dueAt: Date?
    var position: Int

    static let crudConstraints: [CRUDConstraint<HistoryTodoV3>] = [
        .foreignKey(\.userId, references: \HistoryUser.id, onDelete: .cascade),
    ]
    static let crudIndexes: [CRUDIndex<HistoryTodoV3>] = [.index(\.title)]
}

/// An order before and after its total became an integer.
struct LossyOrderV1: CRUDModel, TableNameProvider {
    static let tableName = "LossyOrder"
    var id: Int
    var total: Double
}

struct LossyOrderV2: CRUDModel, TableNameProvider, Equatable {
    static let tableName = "LossyOrder"
    var id: Int
    var total: Int
}

/// One line of a catalog read: how a test describes a database's schema.
struct CatalogLine: CRUDModel {
    var line: String
}

/// The frozen three-release history of `SchemaHistory/` (v1 → v2 renames and adds columns and an
/// index → v3 retypes a column, drops one and adds a foreign key), applied as a new install and as
/// upgrades from every earlier release: the schemas, read back from each database's catalog, are
/// the same, and every row and value is kept.
@Suite("frozen migrations")
struct FrozenMigrationTests {
    static let due = Date(timeIntervalSince1970: 1_800_000_000)

    /// A migrator of the history's first `releases` steps.
    static func migrator<C: DatabaseConfigurationProtocol>(_: C.Type, releases: Int) -> CRUDMigrator<C> {
        var migrator = CRUDMigrator<C>()
        migrator.register(Array(TodoHistory.migrations.prefix(releases)))
        return migrator
    }

    /// The rows of release 1, written through its models.
    static func writeRelease1<C>(_ db: Database<C>) throws {
        try db.table(HistoryUser.self).insert([HistoryUser(id: 1, name: "Ann", email: "ann@example.com"),
                                               HistoryUser(id: 2, name: "Bob", email: "bob@example.com")])
        try db.table(HistoryTodoV1.self).insert([
            HistoryTodoV1(id: 1, userId: 1, name: "write", done: false, priority: "3", notes: "first"),
            HistoryTodoV1(id: 2, userId: 2, name: "test", done: true, priority: nil, notes: nil),
        ])
    }

    /// A row of release 2.
    static func writeRelease2<C>(_ db: Database<C>) throws {
        try db.table(HistoryTodoV2.self).insert(HistoryTodoV2(id: 3, userId: 1, title: "ship", done: false, priority: "1", notes: "later",
                                                              dueAt: due, position: 2))
    }

    static let release1TodosAtV3 = [
        HistoryTodoV3(id: 1, userId: 1, title: "write", done: false, priority: 3, dueAt: nil, position: 0),
        HistoryTodoV3(id: 2, userId: 2, title: "test", done: true, priority: nil, dueAt: nil, position: 0),
    ]
    static let release2TodoAtV3 = HistoryTodoV3(id: 3, userId: 1, title: "ship", done: false, priority: 1, dueAt: due, position: 2)

    @Test("a new install and upgrades from releases 1 and 2 give one schema, keep every value, and match the last snapshot",
          arguments: Backend.all)
    func upgrades(_ backend: Backend) throws { try upgrades(backend.open(), backend) }

    func upgrades<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        // A new install of release 3.
        let fresh = Database(configuration: configuration)
        #expect(try Self.migrator(C.self, releases: 3).migrate(fresh) == TodoHistory.migrations.map(\.name))
        let expected = try Self.describe(fresh, configuration)
        #expect(expected.contains { $0.contains("index_HistoryTodo_title") }, "\(expected)")
        #expect(!expected.contains { $0.contains("notes") })

        // Release 1, then 2, then 3, with rows written at each.
        let stepwise = try Self.reopen(backend, like: configuration)
        try Self.migrator(C.self, releases: 1).migrate(stepwise)
        try Self.writeRelease1(stepwise)
        try Self.migrator(C.self, releases: 2).migrate(stepwise)
        let freshV2 = try Self.reopen(backend, like: configuration)
        try Self.migrator(C.self, releases: 2).migrate(freshV2)
        try Self.expectSameSchema(stepwise, freshV2, configuration)
        #expect(try stepwise.table(HistoryTodoV2.self).order(by: \.id).select().map(\.title) == ["write", "test"])
        try Self.writeRelease2(stepwise)
        #expect(try Self.migrator(C.self, releases: 3).migrate(stepwise) == [TodoHistory.migrations[2].name])
        try Self.expectSameSchema(stepwise, fresh, configuration)
        #expect(try stepwise.table(HistoryTodoV3.self).order(by: \.id).select().map { $0 } == Self.release1TodosAtV3 + [Self.release2TodoAtV3])
        #expect(try stepwise.table(HistoryUser.self).order(by: \.id).select().map(\.email) == ["ann@example.com", "bob@example.com"])

        // Release 1 straight to 3.
        let leap = try Self.reopen(backend, like: configuration)
        try Self.migrator(C.self, releases: 1).migrate(leap)
        try Self.writeRelease1(leap)
        #expect(try Self.migrator(C.self, releases: 3).migrate(leap).count == 2)
        try Self.expectSameSchema(leap, fresh, configuration)
        #expect(try leap.table(HistoryTodoV3.self).order(by: \.id).select().map { $0 } == Self.release1TodosAtV3)

        // The foreign key release 3 added holds on every path: deleting a user deletes its todos.
        for db in [fresh, stepwise, leap] {
            let migrator = Self.migrator(C.self, releases: 3)
            try db.checkSchema(try #require(migrator.schema))
            #expect(try migrator.migrate(db).isEmpty, "applying again does nothing")
        }
        try stepwise.table(HistoryUser.self).where(\HistoryUser.id == 1).delete()
        #expect(try stepwise.table(HistoryTodoV3.self).select().map(\.id) == [2])
        #expect(throws: CRUDSQLExeError.self) {
            try fresh.table(HistoryTodoV3.self).insert(HistoryTodoV3(id: 9, userId: 99, title: "orphan", done: false, priority: nil, dueAt: nil, position: 0))
        }

        // A column added by hand is named by the check against the snapshot.
        try fresh.sql("ALTER TABLE \(fresh.quote("HistoryUser")) ADD COLUMN \(fresh.quote("nickname")) \(Backend.isMySQL(configuration) ? "TEXT" : "text")")
        #expect {
            try fresh.checkSchema(try #require(Self.migrator(C.self, releases: 3).schema))
        } throws: { error in
            (error as? CRUDSchemaMismatchError)?.differences == [.unexpectedColumn(table: "HistoryUser", column: "nickname")]
        }
    }

    @Test("dropping an index, a unique constraint and a foreign key, and a column back to optional: the tables of a new install",
          arguments: Backend.all)
    func drops(_ backend: Backend) throws { try drops(backend.open(), backend) }

    func drops<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let last = TodoHistory.migrations[2].schema
        var user = try #require(last[table: "HistoryUser"])
        var todo = try #require(last[table: "HistoryTodo"])
        let unique = user.constraints.removeFirst()
        let foreignKey = todo.constraints.removeFirst()
        let index = todo.indexes.removeFirst()
        let position = try #require(todo.columns.firstIndex { $0.name == "position" })
        todo.columns[position].isNullable = true
        let release4 = CRUDSchemaMigration("0004 fewer rules", changes: [
            .dropConstraint(unique, table: "HistoryUser"),
            .dropIndex(index, table: "HistoryTodo"),
            .dropConstraint(foreignKey, table: "HistoryTodo"),
            .alterColumn(from: CRUDSchemaColumn("position", .integer(bits: 64, signed: true)),
                         to: CRUDSchemaColumn("position", .integer(bits: 64, signed: true), nullable: true), table: "HistoryTodo"),
        ], schema: CRUDSchema([user, todo]))
        let db = Database(configuration: configuration)
        var upgrade = Self.migrator(C.self, releases: 3)
        try upgrade.migrate(db)
        try db.table(HistoryUser.self).insert([HistoryUser(id: 1, name: "Ann", email: "ann@example.com"),
                                               HistoryUser(id: 2, name: "Bob", email: "bob@example.com")])
        try db.table(HistoryTodoV3.self).insert(Self.release1TodosAtV3)
        upgrade.register(release4)
        try upgrade.migrate(db)
        let fresh = try Self.reopen(backend, like: configuration)
        var install = CRUDMigrator<C>()
        install.register(CRUDSchemaMigration("0001 as of release 4", changes: [.createTable(user), .createTable(todo)], schema: release4.schema))
        try install.migrate(fresh)
        try Self.expectSameSchema(db, fresh, configuration)
        try db.checkSchema(release4.schema)
        // Against release 3's schema, and with an index made by hand, every difference is named.
        try db.sql("CREATE INDEX \(db.quote("extra_done")) ON \(db.quote("HistoryTodo")) (\(db.quote("done")))")
        #expect {
            try db.checkSchema(last)
        } throws: { error in
            Set((error as? CRUDSchemaMismatchError)?.differences ?? []) == [
                .missingConstraint(table: "HistoryUser", constraint: "HistoryUser_email_key"),
                .missingIndex(table: "HistoryTodo", index: "index_HistoryTodo_title"),
                .unexpectedIndex(table: "HistoryTodo", index: "extra_done"),
                .missingConstraint(table: "HistoryTodo", constraint: "HistoryTodo_userId_fkey"),
                .nullabilityMismatch(table: "HistoryTodo", column: "position", propertyIsOptional: false),
            ]
        }
        try db.sql("DROP INDEX \(db.quote("extra_done"))" + (Backend.isMySQL(configuration) ? " ON \(db.quote("HistoryTodo"))" : ""))
        // What the dropped rules refused is accepted now, and every row stayed.
        try db.table(HistoryUser.self).insert(HistoryUser(id: 3, name: "Ann again", email: "ann@example.com"))
        try db.table(HistoryTodoV3.self).insert(HistoryTodoV3(id: 7, userId: 99, title: "orphan", done: false, priority: nil, dueAt: nil, position: 0))
        #expect(try db.table(HistoryTodoV3.self).order(by: \.id).select().map(\.id) == [1, 2, 7])
    }

    @Test("create(_:) of the last release's models makes the tables its frozen steps make: constraints and declared indexes too",
          arguments: Backend.all)
    func createMatchesSteps(_ backend: Backend) throws { try createMatchesSteps(backend.open(), backend) }

    func createMatchesSteps<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let created = Database(configuration: configuration)
        try created.create(HistoryUser.self)
        try created.create(HistoryTodoV3.self)
        try created.create(HistoryTodoV3.self)
        let migrated = try Self.reopen(backend, like: configuration)
        try Self.migrator(C.self, releases: 3).migrate(migrated)
        try Self.expectSameSchema(created, migrated, configuration)
    }

    @Test("adopting: a database made by create(_:) takes the first frozen step as applied, then upgrades; one that differs is refused",
          arguments: Backend.all)
    func adopting(_ backend: Backend) throws { try adopting(backend.open(), backend) }

    func adopting<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(HistoryUser.self)
        try db.create(HistoryTodoV1.self)
        try Self.writeRelease1(db)
        var migrator = CRUDMigrator<C>()
        migrator.register(adopting: TodoHistory.migrations[0])
        migrator.register(Array(TodoHistory.migrations.dropFirst()))
        #expect(try migrator.migrate(db) == TodoHistory.migrations.map(\.name))
        #expect(try db.table(HistoryTodoV3.self).order(by: \.id).select().map { $0 } == Self.release1TodosAtV3)
        let fresh = try Self.reopen(backend, like: configuration)
        try migrator.migrate(fresh)
        try Self.expectSameSchema(db, fresh, configuration)

        let partial = try Self.reopen(backend, like: configuration)
        try partial.create(HistoryUser.self)
        #expect {
            try migrator.migrate(partial)
        } throws: { error in
            // MySQL, where a step's changes commit as they run, reports any failed step as not undone.
            var mismatch = error
            if case let .stepNotUndone(_, _, underlying) = error as? CRUDMigrationError { mismatch = underlying }
            return (mismatch as? CRUDSchemaMismatchError)?.differences == [.missingTable("HistoryTodo")]
        }
        #expect(try migrator.appliedMigrations(partial).isEmpty)
    }

    @Test("a step that fails in the middle: rolled back where the database can, reported as not undone on MySQL", arguments: Backend.all)
    func failingStep(_ backend: Backend) throws { try failingStep(backend.open(), backend) }

    func failingStep<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try Self.migrator(C.self, releases: 1).migrate(db)
        try Self.writeRelease1(db)
        try db.table(HistoryTodoV1.self).insert(HistoryTodoV1(id: 5, userId: 1, name: "argue", done: false, priority: "high", notes: nil))
        let migrator = Self.migrator(C.self, releases: 3)
        if Backend.isMySQL(configuration) {
            #expect {
                try migrator.migrate(db)
            } throws: { error in
                guard case let .stepNotUndone(name, _, _) = error as? CRUDMigrationError else { return false }
                return name == TodoHistory.migrations[2].name
            }
        } else {
            #expect(throws: (any Error).self) { try migrator.migrate(db) }
        }
        #expect(try migrator.appliedMigrations(db) == TodoHistory.migrations.prefix(2).map(\.name))
        // Release 3's first change is the one that fails: every backend is left at release 2.
        let freshV2 = try Self.reopen(backend, like: configuration)
        try Self.migrator(C.self, releases: 2).migrate(freshV2)
        try Self.expectSameSchema(db, freshV2, configuration)
        #expect(try db.table(HistoryTodoV2.self).order(by: \.id).select().map(\.priority) == ["3", nil, "high"])

        // Fixed by a hand-written data step before it, the release applies.
        var fixed = CRUDMigrator<C>()
        fixed.register(Array(TodoHistory.migrations.prefix(2)))
        fixed.register("priorities that are words") { db in
            try db.table(HistoryTodoV2.self).where(\HistoryTodoV2.priority == "high").update(HistoryTodoV2(
                id: 5, userId: 1, title: "argue", done: false, priority: "9", notes: nil, dueAt: nil, position: 0), setKeys: \.priority)
        }
        fixed.register(TodoHistory.migrations[2])
        try fixed.migrate(db)
        #expect(try db.table(HistoryTodoV3.self).order(by: \.id).select().map(\.priority) == [3, nil, 9])
    }

    /// Before, MariaDB ran each change of a step as an `ALTER TABLE` of its own, so the column added
    /// first stayed when the retype after it failed.
    @Test("a step whose later change to a table fails leaves that table as it was on every backend, MariaDB too (one ALTER TABLE)",
          arguments: Backend.all)
    func failingLaterChange(_ backend: Backend) throws { try failingLaterChange(backend.open()) }

    func failingLaterChange<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try Self.migrator(C.self, releases: 1).migrate(db)
        try Self.writeRelease1(db)
        try Self.migrator(C.self, releases: 2).migrate(db)
        try db.table(HistoryTodoV2.self).insert(HistoryTodoV2(id: 5, userId: 1, title: "argue", done: false, priority: "high", notes: nil,
                                                              dueAt: nil, position: 0))
        let before = TodoHistory.migrations[1].schema
        var tables = before.tables
        let todo = try #require(tables.firstIndex { $0.name == "HistoryTodo" })
        let flag = CRUDSchemaColumn("flag", .bool)
        let priorityBefore = try #require(tables[todo][column: "priority"])
        let priorityAfter = CRUDSchemaColumn("priority", .integer(bits: 64, signed: true), nullable: true)
        tables[todo].columns.append(flag)
        tables[todo].columns[try #require(tables[todo].columns.firstIndex { $0.name == "priority" })] = priorityAfter
        var migrator = Self.migrator(C.self, releases: 2)
        migrator.register(CRUDSchemaMigration("0003 flags and numbers", changes: [
            .addColumn(flag, table: "HistoryTodo"),
            .alterColumn(from: priorityBefore, to: priorityAfter, table: "HistoryTodo"),
        ], schema: CRUDSchema(tables)))
        #expect(throws: (any Error).self) { try migrator.migrate(db) }
        #expect(try migrator.appliedMigrations(db) == TodoHistory.migrations.prefix(2).map(\.name))
        try db.checkSchema(before)
        #expect(try db.table(HistoryTodoV2.self).order(by: \.id).select().map(\.priority) == ["3", nil, "high"])
    }

    @Test("a generated step edited into an impossible state is refused, naming every problem, before anything is applied",
          arguments: Backend.all)
    func invalidStep(_ backend: Backend) throws { try invalidStep(backend.open()) }

    func invalidStep<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        let good = TodoHistory.migrations[1]
        var tables = good.schema.tables
        tables[1].indexes.append(CRUDSchemaIndex("HistoryTodo_nope_idx", columns: ["nope"]))
        tables[1].constraints.append(.foreignKey("HistoryTodo_owner_fkey", columns: ["userId"], references: "Owner", referencedColumns: ["id"]))
        tables[1].primaryKey = "key"
        let edited = CRUDSchemaMigration(good.name, changes: good.changes + [.dropColumn("name", table: "Nowhere")], schema: CRUDSchema(tables))
        var migrator = CRUDMigrator<C>()
        migrator.register(TodoHistory.migrations[0])
        migrator.register(edited)
        #expect {
            try migrator.migrate(db)
        } throws: { error in
            guard case let .invalidMigration(name, problems) = error as? CRUDMigrationError, name == good.name else { return false }
            let text = problems.joined(separator: "\n")
            return problems.count == 4 && text.contains("\"nope\"") && text.contains("\"Owner\"") && text.contains("\"key\"")
                && text.contains("\"Nowhere\"")
        }
        #expect(try migrator.appliedMigrations(db).isEmpty, "nothing was applied, not even the valid first step")

        var twice = CRUDMigrator<C>()
        twice.register(TodoHistory.migrations[0])
        twice.register(CRUDSchemaMigration(good.name, changes: good.changes, schema: good.schema))
        twice.register(good)
        #expect(throws: CRUDMigrationError.duplicateName(good.name)) { try twice.migrate(db) }
        #expect(try twice.appliedMigrations(db).isEmpty)
    }

    /// Before, a step whose schema lacked a column its changes keep was applied: SQLite rebuilt the
    /// table to the schema and dropped `dueAt` with its values; PostgreSQL and MariaDB recorded the
    /// step as applied, and only a later `checkSchema` failed.
    @Test("a step whose frozen schema is not what its changes make (a column lost in a merge) is refused before anything runs, its values kept",
          arguments: Backend.all)
    func schemaDisagreeingWithChanges(_ backend: Backend) throws { try schemaDisagreeingWithChanges(backend.open()) }

    func schemaDisagreeingWithChanges<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try Self.migrator(C.self, releases: 1).migrate(db)
        try Self.writeRelease1(db)
        try Self.migrator(C.self, releases: 2).migrate(db)
        try Self.writeRelease2(db)

        let good = TodoHistory.migrations[2]
        var tables = good.schema.tables
        let todo = try #require(tables.firstIndex { $0.name == "HistoryTodo" })
        tables[todo].columns.removeAll { $0.name == "dueAt" }
        tables[todo].columns.append(CRUDSchemaColumn("archived", .bool))
        var migrator = Self.migrator(C.self, releases: 2)
        migrator.register(CRUDSchemaMigration(good.name, changes: good.changes, schema: CRUDSchema(tables)))
        #expect {
            try migrator.migrate(db)
        } throws: { error in
            guard case let .schemaDisagrees(name, differences) = error as? CRUDMigrationError, name == good.name else { return false }
            return differences == [
                "the column \"HistoryTodo\".\"dueAt\": in its changes, not in its schema",
                "the column \"HistoryTodo\".\"archived\": in its schema, not in its changes",
            ] && "\(error)".contains("nothing was applied")
        }
        #expect(try migrator.appliedMigrations(db) == TodoHistory.migrations.prefix(2).map(\.name))
        #expect(try db.table(HistoryTodoV2.self).where(\HistoryTodoV2.id == 3).first()?.dueAt == Self.due, "the values are kept")
    }

    /// Before, only the steps' names and order were compared with what was applied: a step edited
    /// after it shipped went unnoticed, and databases migrated before and after the edit differed.
    @Test("an applied step edited afterwards is refused at the next run, naming it; records made before checksums get theirs",
          arguments: Backend.all)
    func stepEditedAfterApplied(_ backend: Backend) throws { try stepEditedAfterApplied(backend.open()) }

    func stepEditedAfterApplied<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try Self.migrator(C.self, releases: 2).migrate(db)
        let records = db.quote("crud_migrations"), checksum = db.quote("checksum")
        func checksums() throws -> [String] {
            try db.sql("SELECT COALESCE(\(checksum), 'none') AS \(db.quote("line")) FROM \(records) ORDER BY \(db.quote("position"))",
                       CatalogLine.self).map(\.line)
        }
        let recorded = try checksums()
        #expect(recorded.count == 2 && recorded.allSatisfy { $0.count == 16 && $0 != "none" } && recorded[0] != recorded[1], "\(recorded)")

        // Edited consistently (its schema is what its changes make), so only its checksum tells.
        let shipped = TodoHistory.migrations[1]
        let index = CRUDSchemaIndex("index_HistoryTodo_done", columns: ["done"])
        var tables = shipped.schema.tables
        tables[try #require(tables.firstIndex { $0.name == "HistoryTodo" })].indexes.append(index)
        var edited = CRUDMigrator<C>()
        edited.register(TodoHistory.migrations[0])
        edited.register(CRUDSchemaMigration(shipped.name, changes: shipped.changes + [.addIndex(index, table: "HistoryTodo")],
                                            schema: CRUDSchema(tables)))
        #expect {
            try edited.migrate(db)
        } throws: { error in
            guard case let .changedAfterApplied(name, was, now) = error as? CRUDMigrationError else { return false }
            return name == shipped.name && was == recorded[1] && now != was && "\(error)".contains("nothing was applied")
        }
        #expect(try edited.appliedMigrations(db) == TodoHistory.migrations.prefix(2).map(\.name))

        // A record of a step applied before checksums were kept, in a table made before them: the
        // next run adds the column and records what the step says now.
        try db.sql("ALTER TABLE \(records) DROP COLUMN \(checksum)")
        #expect(try Self.migrator(C.self, releases: 3).migrate(db) == [TodoHistory.migrations[2].name])
        let all = try checksums()
        #expect(Array(all.prefix(2)) == recorded && all.count == 3 && all[2] != "none", "\(all)")
    }

    /// Before, SQLite refused 12.34 and rolled back (not naming the row), while PostgreSQL
    /// (`USING total::bigint`) and MariaDB (`MODIFY … BIGINT`) stored 12 without a word.
    @Test("a Double column retyped to Int: a value with a fraction is refused on every backend, naming its row, unless the step states the rounding",
          arguments: Backend.all)
    func lossyRetype(_ backend: Backend) throws { try lossyRetype(backend.open()) }

    func lossyRetype<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        let id = CRUDSchemaColumn("id", .integer(bits: 64, signed: true))
        let real = CRUDSchemaColumn("total", .real(bits: 64)), integer = CRUDSchemaColumn("total", .integer(bits: 64, signed: true))
        let created = CRUDSchemaMigration("0001 orders", changes: [.createTable(CRUDSchemaTable("LossyOrder", columns: [id, real], primaryKey: "id"))],
                                          schema: CRUDSchema([CRUDSchemaTable("LossyOrder", columns: [id, real], primaryKey: "id")]))
        let atV2 = CRUDSchema([CRUDSchemaTable("LossyOrder", columns: [id, integer], primaryKey: "id")])
        var first = CRUDMigrator<C>()
        first.register(created)
        try first.migrate(db)
        try db.table(LossyOrderV1.self).insert([LossyOrderV1(id: 1, total: 12), LossyOrderV1(id: 2, total: 12.34), LossyOrderV1(id: 3, total: -7.5)])

        var strict = first
        strict.register(CRUDSchemaMigration("0002 whole totals", changes: [.alterColumn(from: real, to: integer, table: "LossyOrder")], schema: atV2))
        #expect {
            try strict.migrate(db)
        } throws: { error in
            guard case let .lossyValue(name, value) = error as? CRUDMigrationError else { return false }
            return name == "0002 whole totals" && value.keyValue == "2" && value.value == "12.34" && value.column == "total"
                && "\(error)".contains("\"LossyOrder\".\"total\" holds 12.34 in the row whose \"id\" is 2") && "\(error)".contains(".convertColumn")
        }
        #expect(try strict.appliedMigrations(db) == ["0001 orders"])
        #expect(try db.table(LossyOrderV1.self).order(by: \.id).select().map(\.total) == [12, 12.34, -7.5], "nothing was changed")

        var rounding = first
        rounding.register(CRUDSchemaMigration("0002 whole totals", changes: [.convertColumn(from: real, to: integer, table: "LossyOrder", by: .rounding)],
                                              schema: atV2))
        #expect(try rounding.migrate(db) == ["0002 whole totals"])
        // Read with a statement of its own: PostgreSQL refuses one prepared before the column's type
        // changed (0A000, "cached plan must not change result type") on the connection that prepared it.
        let totals = try db.sql("SELECT \(db.quote("id")), \(db.quote("total")) FROM \(db.quote("LossyOrder")) ORDER BY \(db.quote("id"))",
                                LossyOrderV2.self).map(\.total)
        // -7.5 is a half: away from zero on SQLite and MySQL, to the even -8 on PostgreSQL alike.
        #expect(totals == [12, 12, -8], "\(totals)")
        try db.checkSchema(atV2)
    }

    // MARK: - Support

    /// Another new empty database of `configuration`'s kind.
    static func reopen<C: DatabaseConfigurationProtocol>(_ backend: Backend, like _: C) throws -> Database<C> {
        Database(configuration: try #require(try backend.open() as? C))
    }

    /// Expects `db`'s schema to be `reference`'s, naming the lines that differ.
    static func expectSameSchema<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ reference: Database<C>, _ configuration: C,
                                                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let found = try describe(db, configuration)
        let wanted = try describe(reference, configuration)
        #expect(found == wanted, "only here: \(found.filter { !wanted.contains($0) }); only in the reference: \(wanted.filter { !found.contains($0) })",
                sourceLocation: sourceLocation)
    }

    /// The history's tables as the database's catalog describes them, one sorted line per column,
    /// index, key and constraint: columns compare by name, since a column added to a table goes
    /// last there and CRUD names every column it reads.
    static func describe<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ configuration: C) throws -> [String] {
        let queries: [String]
        if Backend.isSQLite(configuration) {
            let tables = "FROM sqlite_master AS m JOIN"
            let history = "WHERE m.type = 'table' AND m.name LIKE 'History%'"
            queries = [
                "SELECT m.name || ' column ' || p.name || ' ' || p.type || ' notnull=' || p.\"notnull\" || ' default=' || coalesce(p.dflt_value, '-') "
                    + "|| ' pk=' || p.pk AS line \(tables) pragma_table_info(m.name) AS p \(history)",
                "SELECT m.name || ' index ' || l.name || ' unique=' || l.\"unique\" || ' on ' || (SELECT group_concat(name, ',') FROM "
                    + "pragma_index_info(l.name)) AS line \(tables) pragma_index_list(m.name) AS l \(history)",
                "SELECT m.name || ' foreign key ' || f.\"from\" || ' -> ' || f.\"table\" || '.' || f.\"to\" || ' delete=' || f.on_delete "
                    + "|| ' update=' || f.on_update AS line \(tables) pragma_foreign_key_list(m.name) AS f \(history)",
            ]
        } else if Backend.isPostgres(configuration) {
            queries = [
                "SELECT table_name || ' column ' || column_name || ' ' || data_type || ' nullable=' || is_nullable || ' default=' "
                    + "|| coalesce(column_default, '-') || ' identity=' || is_identity AS line FROM information_schema.columns "
                    + "WHERE table_schema = current_schema() AND table_name LIKE 'History%'",
                "SELECT tablename || ' index ' || replace(indexdef, current_schema() || '.', '') AS line FROM pg_indexes WHERE schemaname = current_schema() AND tablename LIKE 'History%'",
                "SELECT conrelid::regclass::text || ' constraint ' || conname || ' ' || pg_get_constraintdef(oid) AS line FROM pg_constraint "
                    + "WHERE connamespace = current_schema()::regnamespace AND conrelid::regclass::text LIKE '%History%'",
            ]
        } else {
            queries = [
                "SELECT CONCAT_WS(' ', TABLE_NAME, 'column', COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_DEFAULT, '-'), EXTRA) AS line "
                    + "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'History%'",
                "SELECT CONCAT_WS(' ', TABLE_NAME, 'index', INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME) AS line "
                    + "FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'History%'",
                "SELECT CONCAT_WS(' ', TABLE_NAME, 'constraint', CONSTRAINT_NAME, CONSTRAINT_TYPE) AS line "
                    + "FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'History%'",
                "SELECT CONCAT_WS(' ', TABLE_NAME, 'references', CONSTRAINT_NAME, REFERENCED_TABLE_NAME, UPDATE_RULE, DELETE_RULE) AS line "
                    + "FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'History%'",
            ]
        }
        return try queries.flatMap { try db.sql($0, CatalogLine.self).map(\.line) }.sorted()
    }
}

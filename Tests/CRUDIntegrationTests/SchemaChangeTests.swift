@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

@Suite("schema changes: alterTable and the schema check")
struct SchemaChangeTests {
    static let rows = 10_000

    /// Version 1 with `rows` scores (points "0" … "9999"), an index on points, and 100 awards that
    /// reference scores with ON DELETE CASCADE.
    static func version1<C: DatabaseConfigurationProtocol>(_ db: Database<C>) throws {
        try db.create(ScoreV1.self, policy: .dropTable)
        try db.create(Award.self, policy: .dropTable)
        try db.table(ScoreV1.self).index(\.points)
        try db.table(ScoreV1.self).insert((0 ..< rows).map { ScoreV1(id: $0, player: "player \($0)", points: String($0), note: "n") })
        try db.table(Award.self).insert((0 ..< 100).map { Award(id: $0, scoreId: $0 * 7, title: "award \($0)") })
    }

    @Test("a retyping step on a table of 10,000 rows keeps every row, the rows that reference it and its index",
          arguments: Backend.all)
    func retype(_ backend: Backend) throws { try retype(backend.open(), backend) }

    func retype<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        var migrator = CRUDMigrator<C>()
        migrator.register("v1") { db in try Self.version1(db) }
        migrator.register("v2: points as integers") { db in
            try db.alterTable(ScoreV2.self, renamedColumns: ["name": "player"])
        }
        #expect(try migrator.migrate(db).count == 2)

        let scores = try db.table(ScoreV2.self).order(by: \.id).select().map { $0 }
        #expect(scores.count == Self.rows)
        #expect(scores.map(\.points) == Array(0 ..< Self.rows), "every text became its integer")
        #expect(scores.allSatisfy { $0.name == "player \($0.id)" && $0.bonus == 0 }, "the renamed column kept its values")
        #expect(try db.table(ScoreV2.self).where(\ScoreV2.points > 9_990).count() == 9)
        #expect(try db.table(Award.self).count() == 100, "the rebuild did not run the awards' ON DELETE CASCADE")
        #expect(try db.withConnection { try $0.columnNames(ofTable: "Score") } == ["id", "name", "points", "bonus"])
        try db.checkSchema([ScoreV2.self, Award.self])

        let dangling = #expect(throws: CRUDSQLExeError.self, "the foreign key still holds") {
            try db.table(Award.self).insert(Award(id: 500, scoreId: 123_456, title: "none"))
        }
        #expect(dangling?.kind == .foreignKeyViolation)
        let negative = #expect(throws: CRUDSQLExeError.self, "the check version 2 added holds") {
            try db.table(ScoreV2.self).insert(ScoreV2(id: 20_000, name: "x", points: -1, bonus: 0))
        }
        #expect(negative?.kind == .checkViolation)
        try db.table(ScoreV2.self).where(\ScoreV2.id == 7).delete()
        #expect(try db.table(Award.self).count() == 99, "the cascade still works after the rebuild")
        if backend == .sqlite {
            #expect(try db.withConnection { try $0.indexes(ofTable: "Score").map(\.columns) } == [["points"]], "the index was made again")
        }
    }

    @Test("a value that does not convert fails the change and leaves the table as it was", arguments: Backend.all)
    func failedConversion(_ backend: Backend) throws { try failedConversion(backend.open()) }

    func failedConversion<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try Self.version1(db)
        try db.table(ScoreV1.self).where(\ScoreV1.id == 4_321).update(ScoreV1(id: 4_321, player: "p", points: "many", note: nil))
        var migrator = CRUDMigrator<C>()
        migrator.register("v2") { db in try db.alterTable(ScoreV2.self, renamedColumns: ["name": "player"]) }
        let error = (#expect(throws: (any Error).self) { try migrator.migrate(db) }).map(CRUDMigrationError.stepError)
        #expect(error is CRUDDecoderError || ["22P02", "1292"].contains((error as? CRUDSQLExeError)?.code),
                "SQLite: the read-back finds the text; PostgreSQL: invalid_text_representation; MySQL: truncated incorrect value; got \(String(describing: error))")
        if let decoder = error as? CRUDDecoderError { #expect(decoder.msg.contains("points"), "\(decoder.msg)") }
        try db.checkSchema([ScoreV1.self, Award.self])
        #expect(try db.table(ScoreV1.self).count() == Self.rows)
        #expect(try db.table(ScoreV1.self).where(\ScoreV1.id == 4_321).first()?.points == "many")
        #expect(try migrator.appliedMigrations(db).isEmpty)
    }

    /// Before, PostgreSQL and MySQL rounded 2.5 to an integer without a word; SQLite refused it.
    @Test("alterTable of a Double column to Int: a value with a fraction is refused on every backend, the table left as it was",
          arguments: Backend.all)
    func lossyAlterTable(_ backend: Backend) throws { try lossyAlterTable(backend.open(), backend) }

    func lossyAlterTable<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(LossyOrderV1.self)
        try db.table(LossyOrderV1.self).insert([LossyOrderV1(id: 1, total: 3), LossyOrderV1(id: 2, total: 2.5)])
        let failures = Collector<String>()
        db.didFail = { failures.append("\($0)") }
        let refused = #expect(throws: CRUDDecoderError.self) { try db.alterTable(LossyOrderV2.self) }
        // Before, SQLite reported it twice: the inner read's error, then the change's.
        #expect(failures.items.count == 1, "one failure, one report: \(failures.items)")
        let named = backend == .sqlite ? "total" : "\"LossyOrder\".\"total\" holds 2.5 in the row whose \"id\" is 2"
        #expect(refused?.msg.contains(named) == true, "\(String(describing: refused))")
        #expect(try db.table(LossyOrderV1.self).order(by: \.id).select().map(\.total) == [3, 2.5])
    }

    @Test("alterTable refuses a missing table and a rename of a column that is not there", arguments: Backend.all)
    func refusals(_ backend: Backend) throws { try refusals(backend.open(), backend) }

    func refusals<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.sql("DROP TABLE IF EXISTS \(db.quote("Award"))")
        try db.sql("DROP TABLE IF EXISTS \(db.quote("Score"))")
        let missing = #expect(throws: CRUDSQLGenError.self) { try db.alterTable(ScoreV2.self) }
        #expect(missing?.msg.contains("does not exist") == true)
        try Self.version1(db)
        let rename = #expect(throws: CRUDSQLGenError.self) { try db.alterTable(ScoreV2.self, renamedColumns: ["name": "nobody"]) }
        #expect(rename?.msg.contains("no column \"nobody\"") == true)
        if backend == .sqlite {
            let inside = #expect(throws: CRUDSQLGenError.self, "a rebuild in a transaction with foreign keys on would cascade") {
                try db.transaction { try db.alterTable(ScoreV2.self, renamedColumns: ["name": "player"]) }
            }
            #expect(inside?.msg.contains("ON DELETE") == true)
        }
        #expect(try db.withConnection { try $0.columnNames(ofTable: "Score") } == ["id", "player", "points", "note"])
    }

    @Test("a migration step that leaves a row referencing nothing is rolled back", arguments: Backend.all)
    func danglingReference(_ backend: Backend) throws { try danglingReference(backend.open()) }

    func danglingReference<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.sql("DROP TABLE IF EXISTS \(db.quote("crud_migrations"))")
        try Self.version1(db)
        var migrator = CRUDMigrator<C>()
        migrator.register("a dangling award") { db in
            try db.table(Award.self).insert(Award(id: 1_000, scoreId: 99_999, title: "for nobody"))
        }
        // SQLite: foreign keys are off in the step, and the check before commit finds the row.
        let error = (#expect(throws: (any Error).self) { try migrator.migrate(db) }).map(CRUDMigrationError.stepError)
        #expect((error as? CRUDSQLExeError)?.kind == .foreignKeyViolation, "\(String(describing: error))")
        #expect(try db.table(Award.self).count() == 100)
        #expect(try migrator.appliedMigrations(db).isEmpty)
    }

    @Test("the schema check lists every difference at once", arguments: Backend.all)
    func check(_ backend: Backend) throws { try check(backend.open(), backend) }

    func check<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Cycle.self, policy: .dropTable)
        try db.sql("DROP TABLE IF EXISTS \(db.quote("Marker"))")
        try db.sql("DROP TABLE IF EXISTS \(db.quote("Reading"))")
        // Reading is id Int, value Double?, label String.
        try db.sql("CREATE TABLE \(db.quote("Reading")) (\(db.quote("id")) BIGINT PRIMARY KEY NOT NULL, \(db.quote("value")) TEXT NOT NULL)")
        let error = #expect(throws: CRUDSchemaMismatchError.self) { try db.checkSchema([Cycle.self, Reading.self, Marker.self]) }
        #expect(Set(error?.differences ?? []) == [
            .missingTable("Marker"),
            .typeMismatch(table: "Reading", column: "value", model: .real(bits: 64), database: backend == .sqlite ? "TEXT" : "text"),
            .nullabilityMismatch(table: "Reading", column: "value", propertyIsOptional: true),
            .missingColumn(table: "Reading", column: "label"),
        ])
        #expect(error?.description.contains("\"Reading\".\"label\": no such column") == true)
        try db.checkSchema([Cycle.self])
    }
}

extension CRUDMigrationError {
    /// What a failed step threw: itself, or inside `stepNotUndone` (MySQL).
    static func stepError(_ error: any Error) -> any Error {
        guard case let .stepNotUndone(_, _, underlying) = error as? CRUDMigrationError else { return error }
        return underlying
    }
}

import CRUD
import Foundation
import Testing

@Suite("raw SQL")
struct RawSQLTests {
    @Test("sql(_:bindings:) runs statements; sql(_:bindings:_:) maps rows to a model by column name", arguments: Backend.all)
    func rawSQL(_ backend: Backend) throws { try rawSQL(backend.open()) }

    func rawSQL<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self)
        try db.table(Pupil.self).insert([Pupil(id: 1, name: "Ann", nickname: "A"), Pupil(id: 2, name: "Bob")])
        let parameter = db.executor.dialect.placeholder
        try db.sql("UPDATE \"Pupil\" SET \"nickname\" = \(parameter(0)) WHERE \"id\" = \(parameter(1))", bindings: ["Bobby", 2])
        let reordered = try db.sql("SELECT \"nickname\", 'extra' AS \"unused\", \"name\", \"id\" FROM \"Pupil\" ORDER BY \"id\"", Pupil.self)
        #expect(reordered == [Pupil(id: 1, name: "Ann", nickname: "A"), Pupil(id: 2, name: "Bob", nickname: "Bobby")])
        #expect(reordered.allSatisfy { $0.courses == nil })
        let filtered = try db.sql("SELECT * FROM \"Pupil\" WHERE \"name\" = \(parameter(0))", bindings: ["Ann"], Pupil.self)
        #expect(filtered.map(\.id) == [1])
        #expect(try db.sql("SELECT * FROM \"Pupil\" WHERE \"nickname\" IS NULL", Pupil.self).isEmpty)
        let missing = #expect(throws: CRUDDecoderError.self) { try db.sql("SELECT \"id\" FROM \"Pupil\"", Pupil.self) }
        #expect(missing?.msg.contains("no column \"name\"") == true)
        let unfit = #expect(throws: CRUDDecoderError.self) {
            try db.sql("SELECT \"id\", NULL AS \"name\", \"nickname\" FROM \"Pupil\"", Pupil.self)
        }
        #expect(unfit?.msg == "reading Pupil: column \"name\": NULL where a value is required (the property is not optional)",
                "a decoding error from sql() names the model and the column")
        try db.create(TestTable1.self, policy: .shallow)
        let renamed = #expect(throws: CRUDDecoderError.self) {
            try db.sql("SELECT 1 AS \"id\", 'x' AS \"name\", 'not a number' AS \"int\", NULL AS \"doub\", NULL AS \"blob\"", TestTable1.self)
        }
        #expect(renamed?.msg.hasPrefix("reading TestTable1 (table \"test_table_1\"): column \"int\": ") == true, "\(String(describing: renamed))")
        let error = #expect(throws: CRUDSQLExeError.self) { try db.sql("SELEKT nonsense") }
        #expect(error?.sql == "SELEKT nonsense")
        #expect(error?.code != nil && error?.databaseMessage != nil)
    }

    @Test("SQL holding two statements is an error on every backend, and runs none of them; a trailing semicolon or comment is fine",
          arguments: Backend.all)
    func twoStatements(_ backend: Backend) throws { try twoStatements(backend.open()) }

    func twoStatements<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.table(Course.self).insert(Course(id: 1, title: "kept"))
        let error = #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT 1; DROP TABLE \"Course\"") }
        #expect(error?.sql == "SELECT 1; DROP TABLE \"Course\"")
        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT 1 AS \"text\"; DELETE FROM \"Course\"", TextValue.self) }
        #expect(throws: CRUDSQLExeError.self) { try db.sql("DELETE FROM \"Course\";\n-- then\nDROP TABLE \"Course\";") }
        #expect(try db.table(Course.self).count() == 1, "neither statement ran")
        try db.sql("UPDATE \"Course\" SET \"title\" = 'still kept';  -- a comment after the only statement\n")
        try db.sql("UPDATE \"Course\" SET \"title\" = 'kept again' ; /* a block comment */ ;")
        #expect(try db.table(Course.self).first()?.title == "kept again")
    }
}

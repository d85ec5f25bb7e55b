import CRUD
import Foundation
import Testing

@Suite("raw SQL")
struct RawSQLTests {
    @Test("quote(_:) makes any name safe in raw SQL: keywords, quotes and backticks, on every backend", arguments: Backend.all)
    func quoting(_ backend: Backend) throws { try quoting(backend.open()) }

    func quoting<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Awkward.self)
        try db.table(Awkward.self).insert(Awkward(id: 1, group: "g", order: 2, quoted: "q", select: true))
        let quotedColumn = db.quote("it's \"quoted\"")
        try db.sql("UPDATE \(db.quote(Awkward.self)) SET \(quotedColumn) = \(db.placeholder(0)), \(db.quote("order")) = 3 "
            + "WHERE \(db.quote("group")) = \(db.placeholder(1))", bindings: ["`back` \"ticks\"", "g"])
        #expect(try db.table(Awkward.self).select().map { [$0.quoted, String($0.order)] } == [["`back` \"ticks\"", "3"]])
        #expect(try db.sql("SELECT \(quotedColumn) AS \(db.quote("text")) FROM \(db.quote("order"))", TextValue.self).map(\.text)
            == ["`back` \"ticks\""])
        let backticked = db.quote("a`b\"c")
        try db.sql("CREATE TABLE \(backticked) (\(backticked) INTEGER)")
        try db.sql("INSERT INTO \(backticked) (\(backticked)) VALUES (7)")
        #expect(try db.sql("SELECT \(backticked) AS \(db.quote("n")) FROM \(backticked)", SingleNumber.self).map(\.n) == [7])
    }

    /// Before, `CRUDTableName` was the name in double quotes, which MySQL reads as a string:
    /// Perfect-CRUD's own MySQL tests (`testBespokeSQL`, `testLastInsertId`, `testEmptyInsert`) failed.
    @Test("CRUDTableName is the plain table name, as in Perfect-CRUD: raw SQL that names a table by it runs on every backend",
          arguments: Backend.all)
    func plainTableName(_ backend: Backend) throws { try plainTableName(backend.open(), backend) }

    func plainTableName<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        #expect(Pupil.CRUDTableName == "Pupil")
        #expect(BespokeItem.CRUDTableName == "bespoke_item")
        let db = Database(configuration: configuration)
        try db.sql("DROP TABLE IF EXISTS \(BespokeItem.CRUDTableName)")
        try db.create(BespokeItem.self)
        try db.table(BespokeItem.self).insert([BespokeItem(id: 1, name: "one"), BespokeItem(id: 2, name: "two")])
        #expect(try db.sql("SELECT * FROM \(BespokeItem.CRUDTableName) WHERE id = 2", BespokeItem.self) == [BespokeItem(id: 2, name: "two")])
        #expect(try db.sql("SELECT * FROM \(BespokeItem.CRUDTableName)", BespokeItem.self).count == 2)
        // PostgreSQL folds an unquoted name to lower case, as it did for Perfect-CRUD: a name with
        // capitals is `db.quote(Pupil.self)` there.
        guard backend != .postgres else { return }
        try db.create(Pupil.self)
        try db.table(Pupil.self).insert(Pupil(id: 1, name: "Ann"))
        #expect(try db.sql("SELECT * FROM \(Pupil.CRUDTableName)", Pupil.self).map(\.name) == ["Ann"])
    }

    @Test("sql(_:bindings:) runs statements; sql(_:bindings:_:) maps rows to a model by column name", arguments: Backend.all)
    func rawSQL(_ backend: Backend) throws { try rawSQL(backend.open()) }

    func rawSQL<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self)
        try db.table(Pupil.self).insert([Pupil(id: 1, name: "Ann", nickname: "A"), Pupil(id: 2, name: "Bob")])
        let (pupil, id, name, nickname) = (db.quote(Pupil.self), db.quote("id"), db.quote("name"), db.quote("nickname"))
        try db.sql("UPDATE \(pupil) SET \(nickname) = \(db.placeholder(0)) WHERE \(id) = \(db.placeholder(1))", bindings: ["Bobby", 2])
        let reordered = try db.sql("SELECT \(nickname), 'extra' AS \(db.quote("unused")), \(name), \(id) FROM \(pupil) ORDER BY \(id)", Pupil.self)
        #expect(reordered == [Pupil(id: 1, name: "Ann", nickname: "A"), Pupil(id: 2, name: "Bob", nickname: "Bobby")])
        #expect(reordered.allSatisfy { $0.courses == nil })
        let filtered = try db.sql("SELECT * FROM \(pupil) WHERE \(name) = \(db.placeholder(0))", bindings: ["Ann"], Pupil.self)
        #expect(filtered.map(\.id) == [1])
        #expect(try db.sql("SELECT * FROM \(db.quote("Pupil")) WHERE \(db.quote("nickname")) IS NULL", Pupil.self).isEmpty)
        let missing = #expect(throws: CRUDDecoderError.self) { try db.sql("SELECT \(db.quote("id")) FROM \(db.quote("Pupil"))", Pupil.self) }
        #expect(missing?.msg.contains("no column \"name\"") == true)
        let unfit = #expect(throws: CRUDDecoderError.self) {
            try db.sql("SELECT \(db.quote("id")), NULL AS \(db.quote("name")), \(db.quote("nickname")) FROM \(db.quote("Pupil"))", Pupil.self)
        }
        #expect(unfit?.msg == "reading Pupil: column \"name\": NULL where a value is required (the property is not optional)",
                "a decoding error from sql() names the model and the column")
        try db.create(TestTable1.self, policy: .shallow)
        let renamed = #expect(throws: CRUDDecoderError.self) {
            try db.sql("SELECT 1 AS \(db.quote("id")), 'x' AS \(db.quote("name")), 'not a number' AS \(db.quote("int")), NULL AS \(db.quote("doub")), NULL AS \(db.quote("blob"))", TestTable1.self)
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
        let error = #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT 1; DROP TABLE \(db.quote("Course"))") }
        #expect(error?.sql == "SELECT 1; DROP TABLE \(db.quote("Course"))")
        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELECT 1 AS \(db.quote("text")); DELETE FROM \(db.quote("Course"))", TextValue.self) }
        #expect(throws: CRUDSQLExeError.self) { try db.sql("DELETE FROM \(db.quote("Course"));\n-- then\nDROP TABLE \(db.quote("Course"));") }
        #expect(try db.table(Course.self).count() == 1, "neither statement ran")
        try db.sql("UPDATE \(db.quote("Course")) SET \(db.quote("title")) = 'still kept';  -- a comment after the only statement\n")
        try db.sql("UPDATE \(db.quote("Course")) SET \(db.quote("title")) = 'kept again' ; /* a block comment */ ;")
        #expect(try db.table(Course.self).first()?.title == "kept again")
    }
}

/// A model whose table name is lower case, which every backend reads unquoted.
struct BespokeItem: CRUDModel, TableNameProvider, Equatable {
    static let tableName = "bespoke_item"
    let id: Int
    var name: String
}

@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

@Suite("create, table, index")
struct CreateTests {
    @Test("default policy creates once; recursive creation reaches joined types; shallow does not", arguments: Backend.all)
    func recursion(_ backend: Backend) throws { try recursion(backend.open()) }

    func recursion<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        let connection = TableColumns(db)
        try db.create(Student.self, policy: .shallow)
        #expect(try connection.columnNames(ofTable: "Student") == ["id"])
        #expect(try connection.columnNames(ofTable: "Class") == nil)
        try db.create(Student.self)
        #expect(try connection.columnNames(ofTable: "Class") == ["id"], "Class is joined from Student, so it is created too")
        try db.create(Pupil.self)
        for table in ["Pupil", "Course", "Grade"] {
            #expect(try connection.columnNames(ofTable: table) != nil, "\(table)")
        }
        try db.table(Pupil.self).insert(Pupil(id: 1, name: "Ann"))
        try db.create(Pupil.self)
        #expect(try db.table(Pupil.self).count() == 1, "create on an existing table changes nothing")
        try db.create(Pupil.self, policy: .dropTable)
        #expect(try db.table(Pupil.self).count() == 0, ".dropTable starts over")
    }

    @Test(".reconcileTable adds and removes columns, keeps the rows, and never changes a type", arguments: Backend.all)
    func reconcile(_ backend: Backend) throws { try reconcile(backend.open()) }

    func reconcile<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        let connection = TableColumns(db)
        try db.create(ItemV1.self)
        try db.table(ItemV1.self).insert([ItemV1(id: 1, name: "kept", obsolete: "x"), ItemV1(id: 2, name: "also kept", obsolete: nil)])
        try db.create(ItemV2.self, policy: .reconcileTable)
        #expect(try connection.columnNames(ofTable: "items") == ["id", "name", "added", "addedText", "addedOptional", "addedDate"])
        let items = try db.table(ItemV2.self).order(by: \.id).select().map { $0 }
        #expect(items.map(\.name) == ["kept", "also kept"])
        #expect(items.map(\.added) == [0, 0], "a new non-optional column is filled with zero")
        #expect(items.map(\.addedText) == ["", ""])
        #expect(items.map(\.addedOptional) == [nil, nil])
        #expect(items.map(\.addedDate) == [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 0)])
        try db.table(ItemV2.self).insert(ItemV2(id: 3, name: "new", added: 5, addedText: "t", addedOptional: 1, addedDate: Date()))

        try db.create(ItemRetyped.self, policy: .reconcileTable)
        #expect(try connection.columnNames(ofTable: "items") == ["id", "name"], "columns the model lacks are removed")
        #expect(throws: CRUDDecoderError.self, "the name column keeps its text type and values") {
            try db.table(ItemRetyped.self).select().map { $0 }
        }
        #expect(try db.sql("SELECT name AS text FROM items ORDER BY id", TextValue.self).map(\.text) == ["kept", "also kept", "new"])
    }

    @Test("primary key: an explicit key path, else the id property, else none; NOT NULL for non-optionals", arguments: Backend.all)
    func primaryKeys(_ backend: Backend) throws { try primaryKeys(backend.open()) }

    func primaryKeys<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.table(Course.self).insert(Course(id: 1, title: "Math"))
        #expect(throws: CRUDSQLExeError.self, "id is the primary key") { try db.table(Course.self).insert(Course(id: 1, title: "Again")) }

        try db.create(Tag.self)
        try db.table(Tag.self).insert([Tag(label: "a", weight: 1), Tag(label: "a", weight: 1)])
        #expect(try db.table(Tag.self).count() == 2, "no id, no primary key: duplicates are allowed")

        try db.create(Tag.self, primaryKey: \.label, policy: .dropTable)
        try db.table(Tag.self).insert(Tag(label: "a", weight: 1))
        #expect(throws: CRUDSQLExeError.self, "label is the primary key") { try db.table(Tag.self).insert(Tag(label: "a", weight: 2)) }

        #expect(throws: CRUDSQLGenError.self) { try db.create(Pupil.self, primaryKey: \.courses) }

    }

    @Test("NOT NULL is enforced for non-optional columns", arguments: Backend.all)
    func notNull(_ backend: Backend) throws { try notNull(backend.open()) }

    func notNull<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        let error = #expect(throws: CRUDSQLExeError.self) { try db.sql("INSERT INTO \"Course\" (\"id\") VALUES (9)") }
        #expect(error?.sql == "INSERT INTO \"Course\" (\"id\") VALUES (9)")
    }

    @Test("indexes, plain and unique", arguments: Backend.all)
    func indexes(_ backend: Backend) throws { try indexes(backend.open()) }

    func indexes<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Tag.self)
        let tags = db.table(Tag.self)
        try tags.index(\.weight)
        try tags.index(\.weight)
        try tags.index(unique: true, \.label, \.weight)
        try tags.insert(Tag(label: "a", weight: 1))
        try tags.insert(Tag(label: "a", weight: 2))
        #expect(throws: CRUDSQLExeError.self) { try tags.insert(Tag(label: "a", weight: 1)) }
        #expect(throws: CRUDSQLGenError.self) { try tags.index() }
    }

    @Test(".neverReuseKeys: a deleted row's key is never given again, also after alterTable; SQLite's default gives it again",
          arguments: Backend.all)
    func neverReuseKeys(_ backend: Backend) throws { try neverReuseKeys(backend.open(), backend) }

    func neverReuseKeys<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(NoteV1.self, policy: .neverReuseKeys)
        let notes = db.table(NoteV1.self)
        try notes.insert([NoteV1(id: nil, text: "a"), NoteV1(id: nil, text: "b"), NoteV1(id: nil, text: "c")], ignoreKeys: \.id)
        try notes.where(\NoteV1.text == "c").delete()
        try notes.insert(NoteV1(id: nil, text: "d"), ignoreKeys: \.id)
        #expect(try notes.order(by: \.id).select().map(\.id) == [1, 2, 4])

        // On SQLite a non-optional column more rebuilds the table: AUTOINCREMENT and its counter go
        // along, though the row with the largest key is gone before.
        try notes.where(\NoteV1.text == "d").delete()
        try db.alterTable(NoteV3.self)
        let rebuilt = db.table(NoteV3.self)
        try rebuilt.insert(NoteV3(id: nil, text: "e", author: nil, words: 1), ignoreKeys: \.id)
        #expect(try rebuilt.order(by: \.id).select().map(\.id) == [1, 2, 5])

        // Without it, SQLite takes the largest key plus one: a deleted last row's key comes back.
        try db.create(Defaults.self)
        let defaults = db.table(Defaults.self)
        try defaults.insert([Defaults(id: nil, name: "x"), Defaults(id: nil, name: "y")], ignoreKeys: \.id)
        try defaults.where(\Defaults.name == "y").delete()
        try defaults.insert(Defaults(id: nil, name: "z"), ignoreKeys: \.id)
        #expect(try defaults.order(by: \.id).select().map(\.id) == (backend == .sqlite ? [1, 2] : [1, 3]))

        let refused = #expect(throws: CRUDSQLGenError.self) { try db.create(Enrollment.self, policy: .neverReuseKeys) }
        #expect(refused?.msg.contains("Enrollment has no primary key") == true, "\(String(describing: refused))")
        let textKey = #expect(throws: CRUDSQLGenError.self) { try db.create(Tag.self, primaryKey: \Tag.label, policy: .neverReuseKeys) }
        #expect(textKey?.msg.contains("the primary key \"label\" is not an integer") == true, "\(String(describing: textKey))")
    }
}

/// The driver's view of a table's columns, through a connection of the database.
struct TableColumns<C: DatabaseConfigurationProtocol> {
    let db: Database<C>

    init(_ db: Database<C>) {
        self.db = db
    }

    func columnNames(ofTable table: String) throws -> [String]? {
        try db.withConnection { try $0.columnNames(ofTable: table) }
    }
}

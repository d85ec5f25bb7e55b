import CRUD
import CRUDPostgres
import CRUDSQLite
import Foundation
import Testing

@Suite("where")
struct WhereTests {
    static func pupils<C: DatabaseConfigurationProtocol>(_ configuration: C) throws -> Database<C> {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self)
        try db.table(Pupil.self).insert([
            Pupil(id: 1, name: "Ann", nickname: "Annie"),
            Pupil(id: 2, name: "Bob", nickname: nil),
            Pupil(id: 3, name: "Cy", nickname: "100%_sure"),
            Pupil(id: 4, name: "Dee", nickname: "100 percent"),
        ])
        return db
    }

    @Test("comparison, logical and IN operators", arguments: Backend.all)
    func operators(_ backend: Backend) throws { try operators(backend.open()) }

    func operators<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let table = try Self.pupils(configuration).table(Pupil.self)
        func ids(_ expression: CRUDBooleanExpression) throws -> [Int] {
            try table.order(by: \.id).where(expression).select().map(\.id)
        }
        #expect(try ids(\Pupil.id == 2) == [2])
        #expect(try ids(\Pupil.id != 2) == [1, 3, 4])
        #expect(try ids(\Pupil.id < 2) == [1])
        #expect(try ids(\Pupil.id <= 2) == [1, 2])
        #expect(try ids(\Pupil.id > 2) == [3, 4])
        #expect(try ids(\Pupil.id >= 2) == [2, 3, 4])
        #expect(try ids(\Pupil.id > 1 && \Pupil.id < 4) == [2, 3])
        #expect(try ids(\Pupil.id == 1 || \Pupil.name == "Dee") == [1, 4])
        #expect(try ids(!(\Pupil.id == 1 || \Pupil.id == 2)) == [3, 4])
        #expect(try ids(\Pupil.id > 20 && !(\Pupil.name == "Me" || \Pupil.name == "You")) == [])
        #expect(try ids(\Pupil.id ~ [2, 4]) == [2, 4])
        #expect(try ids(\Pupil.id !~ [2, 4]) == [1, 3])
        #expect(try ids(\Pupil.id ~ []) == [])
        #expect(try ids(\Pupil.id !~ []) == [1, 2, 3, 4])
        #expect(try ids(\Pupil.nickname ~ ["Annie", nil]) == [1, 2], "nil in a list matches NULL")
        #expect(try ids(\Pupil.nickname !~ ["Annie", nil]) == [3, 4])
    }

    @Test("nil comparisons and force-unwrapped optional key paths", arguments: Backend.all)
    func optionals(_ backend: Backend) throws { try optionals(backend.open()) }

    func optionals<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let table = try Self.pupils(configuration).table(Pupil.self)
        #expect(try table.where(\Pupil.nickname == nil).select().map(\.id) == [2])
        #expect(try table.order(by: \.id).where(\Pupil.nickname != nil).select().map(\.id) == [1, 3, 4])
        #expect(try table.where(\Pupil.nickname! == "Annie").select().map(\.id) == [1])
        #expect(try table.order(by: \.id).where(\Pupil.nickname! >= "100").select().map(\.id) == [1, 3, 4])
        #expect(throws: CRUDSQLGenError.self, "ordering against nil is never true, so it is refused") {
            try table.where(\Pupil.nickname < nil).count()
        }
    }

    @Test("LIKE operators match % and _ in the value literally, case-sensitively", arguments: Backend.all)
    func like(_ backend: Backend) throws { try like(backend.open()) }

    func like<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let table = try Self.pupils(configuration).table(Pupil.self)
        func ids(_ expression: CRUDBooleanExpression) throws -> [Int] {
            try table.order(by: \.id).where(expression).select().map(\.id)
        }
        #expect(try ids(\Pupil.name %=% "n") == [1])
        #expect(try ids(\Pupil.name =% "B") == [2])
        #expect(try ids(\Pupil.name %= "e") == [4])
        #expect(try ids(\Pupil.name %!=% "n") == [2, 3, 4])
        #expect(try ids(\Pupil.name !=% "B") == [1, 3, 4])
        #expect(try ids(\Pupil.name %!= "e") == [1, 2, 3])
        #expect(try ids(\Pupil.name =% "b") == [], "LIKE is case-sensitive on every backend")
        #expect(try ids(\Pupil.nickname! %=% "0%") == [3], "% in the value is a percent sign, not a wildcard")
        #expect(try ids(\Pupil.nickname! %=% "%_") == [3])
        #expect(try ids(\Pupil.nickname! =% "100_") == [], "_ in the value is an underscore")
        #expect(try ids(\Pupil.nickname! %=% "\\") == [])
    }

    @Test("LIKE on optional String columns: the README's TestTable2 as written", arguments: Backend.all)
    func likeOnOptionals(_ backend: Backend) throws { try likeOnOptionals(backend.open()) }

    func likeOnOptionals<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(TestTable2.self)
        let names: [String?] = ["me", "home", "meme", nil, "50%_me\\", "you"]
        try db.table(TestTable2.self).insert(names.enumerated().map {
            TestTable2(id: UUID(), parentId: $0.offset, date: Date(), name: $0.element, int: nil, doub: nil, blob: nil)
        })
        let table = db.table(TestTable2.self)
        let readmeQuery = table.where(\TestTable2.name %=% "me")
        #expect(try readmeQuery.count() == 4)
        func parents(_ expression: CRUDBooleanExpression) throws -> [Int] {
            try table.order(by: \.parentId).where(expression).select().map(\.parentId)
        }
        #expect(try parents(\TestTable2.name %=% "me") == [0, 1, 2, 4])
        #expect(try parents(\TestTable2.name =% "me") == [0, 2])
        #expect(try parents(\TestTable2.name %= "me") == [0, 1, 2])
        #expect(try parents(\TestTable2.name %!=% "me") == [5], "NULL matches no LIKE form, the negated ones included")
        #expect(try parents(\TestTable2.name !=% "me") == [1, 4, 5])
        #expect(try parents(\TestTable2.name %!= "me") == [4, 5])
        #expect(try parents(\TestTable2.name %!=% "me" || \TestTable2.name == nil) == [3, 5])
        #expect(try parents(\TestTable2.name %=% "%_") == [4], "% and _ in the value match themselves")
        #expect(try parents(\TestTable2.name %=% "0%") == [4])
        #expect(try parents(\TestTable2.name =% "50__") == [])
        #expect(try parents(\TestTable2.name %=% "_") == [4])
        #expect(try parents(\TestTable2.name %= "\\") == [4], "a backslash in the value is a backslash")
        #expect(try parents(\TestTable2.name %=% "\\m") == [])
        #expect(try parents(\TestTable2.name! %=% "om") == [1], "a force-unwrapped key path names the same column")
    }

    @Test("optional columns with IN lists, optional values and every comparison", arguments: Backend.all)
    func optionalOperands(_ backend: Backend) throws { try optionalOperands(backend.open()) }

    func optionalOperands<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let table = try Self.pupils(configuration).table(Pupil.self)
        func ids(_ expression: CRUDBooleanExpression) throws -> [Int] {
            try table.order(by: \.id).where(expression).select().map(\.id)
        }
        let names: [String] = ["Annie", "Nobody"]
        #expect(try ids(\Pupil.nickname ~ names) == [1], "a [String] list works on a String? column")
        #expect(try ids(\Pupil.nickname !~ names) == [3, 4], "NULL is not in a list without nil, nor outside it")
        let some: String? = "Annie"
        let none: String? = nil
        #expect(try ids(\Pupil.nickname == some) == [1])
        #expect(try ids(\Pupil.nickname != some) == [3, 4])
        #expect(try ids(\Pupil.nickname == none) == [2], "an optional value holding nil is IS NULL")
        #expect(try ids(\Pupil.nickname != none) == [1, 3, 4])
        let bound: String? = "A"
        #expect(try ids(\Pupil.nickname >= bound) == [1])
        #expect(try ids(\Pupil.nickname < bound) == [3, 4])
        #expect(try ids(\Pupil.nickname > "A") == [1], "a plain value works against an optional column")
        #expect(try ids(\Pupil.nickname <= "A") == [3, 4])
        #expect(throws: CRUDSQLGenError.self) { try table.where(\Pupil.nickname >= none).count() }
        #expect(try table.where(\Pupil.nickname == none).count() == 1)
    }

    @Test("the generated column constants work wherever key paths do: where, order, type-checked the same", arguments: Backend.all)
    func typedColumns(_ backend: Backend) throws { try typedColumns(backend.open()) }

    func typedColumns<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.pupils(configuration)
        let table = db.table(Pupil.self)
        func ids(_ expression: CRUDBooleanExpression) throws -> [Int] {
            try table.order(by: Pupil.Columns.id).where(expression).select().map(\.id)
        }
        #expect(try ids(Pupil.Columns.name == "Ann") == [1])
        #expect(try ids(Pupil.Columns.id > 1 && !(Pupil.Columns.id == 3)) == [2, 4])
        #expect(try ids(Pupil.Columns.id >= 2 && Pupil.Columns.id <= 3 || Pupil.Columns.name != "Bob" && Pupil.Columns.id < 2) == [1, 2, 3])
        #expect(try ids(Pupil.Columns.nickname == nil) == [2])
        #expect(try ids(Pupil.Columns.nickname != nil) == [1, 3, 4])
        #expect(try ids(Pupil.Columns.id ~ [1, 4]) == [1, 4])
        #expect(try ids(Pupil.Columns.id !~ [1, 4]) == [2, 3])
        #expect(try ids(Pupil.Columns.nickname %=% "nni") == [1])
        #expect(try ids(Pupil.Columns.name =% "D") == [4])
        #expect(try ids((Pupil.Columns.name %= "n") || Pupil.Columns.name !=% "A" && Pupil.Columns.name %!=% "o") == [1, 3, 4])
        #expect(try ids(Pupil.Columns.nickname %!= "e") == [4])
        #expect(try ids(Pupil.Columns.name == "Ann" || \Pupil.id == 4) == [1, 4], "columns and key paths mix")
        #expect(try ids(\Pupil.name == "Bob") == ids(Pupil.Columns.name == "Bob"), "the same shape through both forms")
        #expect(try table.order(by: Pupil.Columns.nickname, Pupil.Columns.id).select().map(\.id) == [2, 4, 3, 1])
        #expect(try table.order(descending: Pupil.Columns.id).select().map(\.id) == [4, 3, 2, 1])
        let error = #expect(throws: CRUDSQLGenError.self) { try table.where(Pupil.Columns.nickname < nil).count() }
        #expect(error?.msg.contains("Pupil.Columns.nickname < nil") == true)

        try db.create(Bicycle.self)
        try db.table(Bicycle.self).insert([Bicycle(id: 1, name: "a", color: "red"), Bicycle(id: 2, name: "b", color: "blue"),
                                           Bicycle(id: 3, name: "c", color: "red")])
        let red = try db.table(Bicycle.self).order(by: Bicycle.Columns.id)
            .where(Bicycle.Columns.color == "red" && !(Bicycle.Columns.id == 1)).select().map(\.name)
        #expect(red == ["c"], "Sqlable's filter, as its README writes it")
    }

    @Test("SQL functions in conditions: lower, upper, length, trim, case-insensitive comparison and LIKE, ASCII and not", arguments: Backend.all)
    func functions(_ backend: Backend) throws { try functions(backend.open()) }

    func functions<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self)
        try db.table(Pupil.self).insert([
            Pupil(id: 1, name: "Lars", nickname: "  padded  "),
            Pupil(id: 2, name: "LARS", nickname: nil),
            Pupil(id: 3, name: "Ärger", nickname: "Zoë"),
            Pupil(id: 4, name: "ärger", nickname: "x"),
        ])
        let table = db.table(Pupil.self)
        func ids(_ expression: CRUDBooleanExpression) throws -> [Int] {
            try table.order(by: \.id).where(expression).select().map(\.id)
        }
        #expect(throws: CRUDSQLGenError.self, "a type not in the query is still refused") { try ids(lower(\Person.lastName) == "lars") }
        #expect(try ids(lower(\Pupil.name) == "lars") == [1, 2])
        #expect(try ids(upper(\Pupil.name) == "LARS") == [1, 2])
        #expect(try ids(lower(Pupil.Columns.name) ~ ["lars", "none"]) == [1, 2])
        #expect(try ids(caseInsensitive(\Pupil.name) == "lArS") == [1, 2])
        #expect(try ids(caseInsensitive(\Pupil.name) %=% "AR") == [1, 2])
        #expect(try ids(caseInsensitive(\Pupil.name) %=% "RG") == [3, 4])
        #expect(try ids(caseInsensitive(Pupil.Columns.name) =% "l") == [1, 2])
        #expect(try ids(length(\Pupil.name) == 5) == [3, 4], "length counts characters, not bytes, on every backend")
        #expect(try ids(length(\Pupil.nickname) == 3) == [3], "Zoë: 3 characters, 4 bytes")
        #expect(try ids(length(\Pupil.nickname) > 3) == [1])
        #expect(try ids(trim(\Pupil.nickname) == "padded") == [1])
        #expect(try ids(trim(Pupil.Columns.nickname) %= "ed") == [1])
        // Outside ASCII the backends' own rules apply: SQLite folds only ASCII letters, PostgreSQL
        // follows LC_CTYPE, which is C (ASCII only) on the throwaway test server, MySQL folds Unicode.
        let asciiOnly = Backend.isSQLite(configuration)
            || (Backend.isPostgres(configuration) && (try? PostgresTestServer.shared.get().cluster) != nil)
        if asciiOnly {
            #expect(try ids(lower(\Pupil.name) == "ärger") == [4], "Ä is not folded")
            #expect(try ids(caseInsensitive(\Pupil.name) == "ÄRGER") == [3])
            #expect(try ids(upper(\Pupil.nickname) == "ZOë") == [3])
        } else if Backend.isMySQL(configuration) {
            // MySQL folds by the character set's Unicode rules, also under a binary collation.
            #expect(try ids(lower(\Pupil.name) == "ärger") == [3, 4], "Ä is folded")
            #expect(try ids(caseInsensitive(\Pupil.name) == "ÄRGER") == [3, 4])
            #expect(try ids(upper(\Pupil.nickname) == "ZOË") == [3])
            #expect(try ids(\Pupil.name == "ärger") == [4], "= itself stays exact")
        }
        let error = #expect(throws: CRUDSQLGenError.self) { try table.where(lower(\Pupil.nickname) < nil).count() }
        #expect(error?.msg.contains("lower(\\Pupil.nickname) < nil") == true, "\(String(describing: error))")
    }

    @Test("every supported value type on the right-hand side", arguments: Backend.all)
    func valueTypes(_ backend: Backend) throws { try valueTypes(backend.open()) }

    func valueTypes<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(AllColumnTypes.self)
        let row = ValueMappingTests.sample(id: 1, for: configuration)
        var other = ValueMappingTests.sample(id: 2, for: configuration)
        other.optionalString = nil
        try db.table(AllColumnTypes.self).insert([row, other])
        let table = db.table(AllColumnTypes.self)
        func matches(_ expression: CRUDBooleanExpression) throws -> [Int] {
            try table.where(expression).select().map(\.id)
        }
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.int8 == row.int8) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.int16 == row.int16) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.int32 == row.int32) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.int64 == row.int64) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.uint == row.uint) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.uint8 == row.uint8) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.uint16 == row.uint16) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.uint32 == row.uint32) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.uint64 == row.uint64) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.double == row.double) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.float == row.float) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.bool == row.bool) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.string == row.string) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.bytes == row.bytes) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.signedBytes == row.signedBytes) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.data == row.data) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.date == row.date) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.uuid == row.uuid) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.url == row.url) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.mood == row.mood) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.priority == row.priority) == [1])
        #expect(try matches(\AllColumnTypes.id == 1 && \AllColumnTypes.cents == row.cents) == [1])
        #expect(try matches(\AllColumnTypes.optionalString == row.optionalString) == [1])
        #expect(try matches(\AllColumnTypes.optionalString == nil) == [2])
        #expect(try matches(\AllColumnTypes.date < row.date.addingTimeInterval(0.002) && \AllColumnTypes.date > row.date.addingTimeInterval(-0.002)).count == 2)
        #expect(try matches(\AllColumnTypes.uuid ~ [row.uuid, UUID()]) == [1])
    }

    @Test("a key path of a type that is not in the query is a thrown error", arguments: Backend.all)
    func foreignKeyPath(_ backend: Backend) throws { try foreignKeyPath(backend.open()) }

    func foreignKeyPath<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.pupils(configuration)
        try db.create(Course.self)
        let error = #expect(throws: CRUDSQLGenError.self) {
            try db.table(Pupil.self).where(\Course.title == "Math").select().map { $0 }
        }
        #expect(error?.msg.contains("Course is not part of this query") == true)
        #expect(throws: CRUDSQLGenError.self) { try db.table(Pupil.self).where(\Course.id == 1).count() }
        #expect(throws: CRUDSQLGenError.self) { try db.table(Pupil.self).where(\Course.id == 1).delete() }
    }
}

@_spi(CRUDDriver) @testable import CRUD
import CRUDTesting
import Foundation
import Testing

/// The SQL each operation writes, with its parameters, checked without a database.
@Suite("SQL building")
struct SQLBuildingTests {
    let db = recordingDatabase()
    var recorded: RecordingConnection { db.configuration.connection }

    @Test("select with where, order and limit")
    func select() throws {
        _ = try db.table(Person.self).order(by: \.lastName).order(descending: \.height).limit(10, skip: 20)
            .where(\Person.firstName == "Owen" && \Person.height! >= 170).select().map { $0 }
        #expect(recorded.executions == [.init(
            sql: #"SELECT t0."id", t0."firstName", t0."lastName", t0."height" FROM "Person" AS t0 WHERE (t0."firstName" = $1 AND t0."height" >= $2) ORDER BY t0."lastName" ASC, t0."height" DESC NULLS LAST LIMIT $3 OFFSET $4"#,
            bindings: [.text("Owen"), .real(170), .integer(10), .integer(20)])])
    }

    @Test("count wraps the root query and drops its ordering when there is no limit")
    func count() throws {
        _ = try db.table(Person.self).order(by: \.lastName).where(\Person.height == nil).count()
        _ = try db.table(Person.self).order(by: \.lastName).limit(5).count()
        #expect(recorded.statements == [
            #"SELECT COUNT(*) FROM (SELECT 1 FROM "Person" AS t0 WHERE t0."height" IS NULL) AS crud_count"#,
            #"SELECT COUNT(*) FROM (SELECT 1 FROM "Person" AS t0 ORDER BY t0."lastName" ASC LIMIT $1) AS crud_count"#,
        ])
    }

    /// One root row for the next query, so that a join's children are asked for and loaded (a
    /// cursor's; `select()` and `first()` read them first).
    func queueRootRow(_: Person.Type) {
        recorded.queuedRows = [[.uuid(UUID()), .text("Owen"), .text("Lars"), .null]]
    }

    @Test("a join a cursor reads gets its children in one query keyed to the root query, once the first root row asks for them")
    func join() throws {
        queueRootRow(Person.self)
        try db.table(Person.self).order(by: \.lastName).limit(3)
            .join(\.phoneNumbers, on: \.id, equals: \.personId).order(descending: \.planetCode)
            .forEach { _ in }
        #expect(recorded.statements == [
            #"SELECT j1."personId", j1."planetCode", j1."number" FROM "PhoneNumber" AS j1 WHERE j1."personId" IN (SELECT t0."id" FROM "Person" AS t0 ORDER BY t0."lastName" ASC LIMIT $1) ORDER BY j1."planetCode" DESC"#,
            #"SELECT t0."id", t0."firstName", t0."lastName", t0."height" FROM "Person" AS t0 ORDER BY t0."lastName" ASC LIMIT $1"#,
        ])
    }

    @Test("a where naming a joined type filters the root through EXISTS and the children by the same condition")
    func joinedFilter() throws {
        _ = try db.table(Person.self).join(\.phoneNumbers, on: \.id, equals: \.personId)
            .where(\Person.lastName == "Lars" && \PhoneNumber.planetCode == 12).select().map { $0 }
        let condition = #"(t0."lastName" = $"# + "{n}" + #" AND j1."planetCode" = $"# + "{m}" + ")"
        #expect(recorded.statements[1] == #"SELECT j1."personId", j1."planetCode", j1."number" FROM "PhoneNumber" AS j1 WHERE j1."personId" IN (SELECT t0."id" FROM "Person" AS t0 WHERE EXISTS (SELECT 1 FROM (SELECT 1) AS crud_one LEFT JOIN "PhoneNumber" AS j1 ON j1."personId" = t0."id" WHERE "# + condition.replacingOccurrences(of: "{n}", with: "1").replacingOccurrences(of: "{m}", with: "2") + #")) AND EXISTS (SELECT 1 FROM "Person" AS t0 WHERE t0."id" = j1."personId" AND "# + condition.replacingOccurrences(of: "{n}", with: "3").replacingOccurrences(of: "{m}", with: "4") + ")")
        #expect(recorded.executions[1].bindings == [.text("Lars"), .integer(12), .text("Lars"), .integer(12)])
        #expect(recorded.statements[2] == #"SELECT t0."id", t0."firstName", t0."lastName", t0."height" FROM "Person" AS t0 WHERE EXISTS (SELECT 1 FROM (SELECT 1) AS crud_one LEFT JOIN "PhoneNumber" AS j1 ON j1."personId" = t0."id" WHERE "# + condition.replacingOccurrences(of: "{n}", with: "1").replacingOccurrences(of: "{m}", with: "2") + ")")
        #expect(recorded.statements.count == 4 && recorded.statements.first == "BEGIN" && recorded.statements.last == "COMMIT",
                "the children and the root rows are read in one snapshot: \(recorded.statements)")
    }

    @Test("a pivot join goes through the junction table")
    func pivotJoin() throws {
        _ = try db.table(Student.self).join(\.classes, with: StudentClasses.self, on: \.id, equals: \.studentId, and: \.id, is: \.classId)
            .where(\Student.id == 1).first()
        #expect(recorded.statements[1] == #"SELECT j1."id", p1."studentId" FROM "Class" AS j1 JOIN "StudentClasses" AS p1 ON p1."classId" = j1."id" WHERE p1."studentId" IN (SELECT t0."id" FROM "Student" AS t0 WHERE t0."id" = $1 LIMIT $2)"#)
    }

    @Test("insert, DEFAULT VALUES, update and delete number their parameters after the model's")
    func writes() throws {
        let number = PhoneNumber(personId: UUID(), planetCode: 12, number: "555")
        try db.table(PhoneNumber.self).insert(number)
        try db.table(PhoneNumber.self).insert(number, setKeys: \.number, \.planetCode)
        try db.table(PhoneNumber.self).insert(number, ignoreKeys: \.number, \.planetCode, \.personId)
        try db.table(PhoneNumber.self).where(\PhoneNumber.planetCode ~ [1, 2]).update(number, setKeys: \.number)
        try db.table(PhoneNumber.self).where(\PhoneNumber.number !=% "5%").delete()
        #expect(recorded.executions == [
            .init(sql: #"INSERT INTO "PhoneNumber" ("personId", "planetCode", "number") VALUES ($1, $2, $3)"#,
                  bindings: [.uuid(number.personId), .integer(12), .text("555")]),
            .init(sql: #"INSERT INTO "PhoneNumber" ("planetCode", "number") VALUES ($1, $2)"#, bindings: [.integer(12), .text("555")]),
            .init(sql: #"INSERT INTO "PhoneNumber" DEFAULT VALUES"#, bindings: []),
            .init(sql: #"UPDATE "PhoneNumber" SET "number" = $1 WHERE "planetCode" IN ($2, $3)"#, bindings: [.text("555"), .integer(1), .integer(2)]),
            .init(sql: #"DELETE FROM "PhoneNumber" WHERE "number" NOT LIKE $1 ESCAPE '\'"#, bindings: [.text(#"5\%%"#)]),
        ])
    }

    @Test("a batch insert is one transaction; rows go in chunks of the dialect's size, each row bound after the last")
    func batchInsert() throws {
        try db.table(StudentClasses.self).insert((1 ... 5).map { StudentClasses(studentId: $0, classId: $0 * 10) })
        #expect(recorded.statements == [
            "BEGIN",
            #"INSERT INTO "StudentClasses" ("studentId", "classId") VALUES ($1, $2), ($3, $4)"#,
            #"INSERT INTO "StudentClasses" ("studentId", "classId") VALUES ($1, $2)"#,
            "COMMIT",
        ])
        #expect(recorded.executions[1].bindings == [.integer(3), .integer(30), .integer(4), .integer(40)],
                "full chunks reuse one statement; the last full chunk's values are bound")
        #expect(recorded.executions[2].bindings == [.integer(5), .integer(50)])
    }

    @Test("an insert of rows that fit one statement is that statement alone: it is atomic without a transaction")
    func oneStatementInsert() throws {
        try db.table(StudentClasses.self).insert((1 ... 2).map { StudentClasses(studentId: $0, classId: $0 * 10) })
        #expect(recorded.statements == [#"INSERT INTO "StudentClasses" ("studentId", "classId") VALUES ($1, $2), ($3, $4)"#])
    }

    @Test("create writes types from the dialect, NOT NULL for non-optionals, and the primary key")
    func create() throws {
        try db.create(TestTable1.self, policy: [.dropTable])
        #expect(recorded.statements == [
            "BEGIN",
            #"DROP TABLE IF EXISTS "test_table_1""#,
            #"CREATE TABLE IF NOT EXISTS "test_table_1" ("id" INT64 PRIMARY KEY NOT NULL, "name" TEXT, "int" INT64, "doub" FLOAT64, "blob" BYTES)"#,
            #"DROP TABLE IF EXISTS "TestTable2""#,
            #"CREATE TABLE IF NOT EXISTS "TestTable2" ("id" UUID PRIMARY KEY NOT NULL, "parentId" INT64 NOT NULL, "date" TIME NOT NULL, "name" TEXT, "int" INT64, "doub" FLOAT64, "blob" BYTES)"#,
            "COMMIT",
        ])
    }

    @Test("nested transactions become savepoints")
    func savepoints() throws {
        try db.transaction {
            try db.transaction { try db.transaction {} }
            _ = try? db.transaction { throw CRUDSQLGenError("inner") }
        }
        #expect(recorded.statements == [
            "BEGIN", "SAVEPOINT crud_savepoint_1", "SAVEPOINT crud_savepoint_2", "RELEASE SAVEPOINT crud_savepoint_2",
            "RELEASE SAVEPOINT crud_savepoint_1", "SAVEPOINT crud_savepoint_1", "ROLLBACK TO SAVEPOINT crud_savepoint_1",
            "RELEASE SAVEPOINT crud_savepoint_1", "COMMIT",
        ])
    }

    @Test("LIKE patterns escape %, _ and the escape character; IN handles NULL and empty lists")
    func patterns() throws {
        #expect(LikePattern.contains.pattern("50%_off\\") == #"%50\%\_off\\%"#)
        #expect(LikePattern.beginsWith.pattern("a") == "a%")
        #expect(LikePattern.endsWith.pattern("a") == "%a")
        _ = try db.table(Person.self).where(\Person.height ~ [1.5, nil]).count()
        _ = try db.table(Person.self).where(\Person.height !~ [nil]).count()
        _ = try db.table(Person.self).where(\Person.height ~ []).count()
        #expect(recorded.statements.map { $0.components(separatedBy: " WHERE ")[1] } == [
            #"(t0."height" IN ($1) OR t0."height" IS NULL)) AS crud_count"#,
            #"t0."height" IS NOT NULL) AS crud_count"#,
            #"1 = 0) AS crud_count"#,
        ])
    }

    @Test("mistakes in a chain are thrown as CRUDSQLGenError before anything runs")
    func mistakes() throws {
        #expect(throws: CRUDSQLGenError.self) { try db.table(Person.self).order(by: \.firstName.count).select() }
        #expect(throws: CRUDSQLGenError.self) { try db.table(Person.self).limit(-1).count() }
        #expect(throws: CRUDSQLGenError.self) { try db.table(Person.self).where(\Person.height < nil).count() }
        #expect(throws: CRUDSQLGenError.self) { try db.table(Person.self).where(\PhoneNumber.number == "x").first() }
        #expect(throws: CRUDSQLGenError.self) { try db.table(Person.self).join(\.phoneNumbers, on: \.id.uuidString, equals: \.personId.uuidString) }
        #expect(throws: CRUDSQLGenError.self) { try db.create(Person.self, primaryKey: \.firstName.count) }
        #expect(recorded.executions.isEmpty)
    }

    @Test("a repeated query shape reuses its SQL with new values; another shape gets its own")
    func shapeCache() throws {
        _ = try db.table(Person.self).where(\Person.firstName == "a").first()
        _ = try db.table(Person.self).where(\Person.firstName == "b").first()
        _ = try db.table(Person.self).where(\Person.lastName == "b").first()
        _ = try db.table(Person.self).where(\Person.height == nil).first()
        _ = try db.table(Person.self).where(\Person.height == 1.5).first()
        _ = try db.table(Person.self).where(\Person.height ~ [1, 2]).first()
        _ = try db.table(Person.self).where(\Person.height ~ [1, 2, 3]).first()
        let executions = recorded.executions
        #expect(executions[0].sql == executions[1].sql)
        #expect(executions.map(\.bindings.first) == [.text("a"), .text("b"), .text("b"), .integer(1), .real(1.5), .real(1), .real(1)])
        #expect(Set(executions.map(\.sql)).count == 6)
        #expect(executions[3].sql.contains(#"t0."height" IS NULL"#))
        #expect(executions[6].sql.contains("IN ($1, $2, $3)"))
    }

    @Test("a made-up identifier over the database's limit is cut to fit with a hash of the whole: distinct, stable, short names kept")
    func identifierLimit() {
        let table = String(repeating: "long_table_", count: 6)
        let alpha = SQLBuilder.identifier("index_\(table)_alpha", fitting: 63)
        let beta = SQLBuilder.identifier("index_\(table)_beta", fitting: 63)
        #expect(alpha.utf8.count == 63 && beta.utf8.count == 63)
        #expect(alpha != beta, "PostgreSQL would cut both to the same 63 bytes")
        #expect(alpha == SQLBuilder.identifier("index_\(table)_alpha", fitting: 63), "the same name gives the same identifier in every run")
        #expect(alpha.hasPrefix("index_long_table_long_table_"))
        #expect(SQLBuilder.identifier("index_Person_name", fitting: 63) == "index_Person_name")
        #expect(SQLBuilder.identifier("index_\(table)_alpha", fitting: nil) == "index_\(table)_alpha")
        let accented = SQLBuilder.identifier(String(repeating: "é", count: 40), fitting: 64)
        #expect(accented.utf8.count <= 64 && accented.hasPrefix("éé"), "cut between characters, never inside one: \(accented)")
    }
}

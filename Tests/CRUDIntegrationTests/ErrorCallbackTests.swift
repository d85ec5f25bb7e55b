import CRUD
import Foundation
import Testing

private struct Mine: Error {}

@Suite("didFail and fail")
struct ErrorCallbackTests {
    @Test("didFail receives every error the library throws from the database, once; fail passes the user's own", arguments: Backend.all)
    func callback(_ backend: Backend) async throws { try await callback(backend.open()) }

    func callback<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        let failures = Collector<String>()
        db.didFail = { failures.append(String(describing: type(of: $0))) }
        try synchronousFailures(db, failures)
        await #expect(throws: CRUDSQLExeError.self) { try await db.sql("SELEKT 2") }
        await #expect(throws: CRUDDecoderError.self) {
            for try await _ in db.table(Strict.self).select() {}
        }
        #expect(failures.items.count == 9, "each async failure once: \(failures.items)")
        try childAndReset(db, failures)
    }

    func synchronousFailures<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ failures: Collector<String>) throws {
        try db.sql("CREATE TABLE \(db.quote("Strict")) (\(db.quote("id")) INTEGER, \(db.quote("name")) TEXT)")
        try db.sql("INSERT INTO \(db.quote("Strict")) VALUES (1, NULL)")

        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELEKT 1") }
        #expect(throws: CRUDSQLGenError.self) { try db.table(Course.self).order(by: \.title.count).count() }
        #expect(throws: CRUDDecoderError.self) { try db.table(Strict.self).select() }
        let cursor = try db.table(Strict.self).cursor()
        #expect(throws: CRUDDecoderError.self) { try cursor.next() }
        #expect(failures.items == ["CRUDSQLExeError", "CRUDSQLGenError", "CRUDDecoderError", "CRUDDecoderError"])

        // Inside a transaction: the failing insert is reported when it throws; the transaction
        // rethrowing the same error does not report it again; an error the body catches is reported.
        try db.create(Course.self)
        #expect(throws: CRUDSQLExeError.self) {
            try db.transaction {
                try db.table(Course.self).insert(Course(id: 1, title: "a"))
                _ = try? db.transaction { try db.table(Course.self).insert(Course(id: 1, title: "caught duplicate")) }
                try db.table(Course.self).insert(Course(id: 1, title: "thrown duplicate"))
            }
        }
        #expect(failures.items.count == 6, "\(failures.items)")

        #expect(throws: Mine.self) { try db.transaction { throw Mine() } }
        #expect(failures.items.count == 6, "the user's own errors are not the library's")
        db.fail(Mine())
        #expect(failures.items.last == "Mine")

    }

    @Test("a schema change that fails is reported once: alterTable with a value that does not convert, its catalog reads and its check inside",
          arguments: Backend.all)
    func schemaChangeReportsOnce(_ backend: Backend) async throws { try await schemaChangeReportsOnce(backend.open()) }

    func schemaChangeReportsOnce<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        let failures = Collector<String>()
        try await db.create(Boundary.self, policy: .dropTable)
        try await db.table(Boundary.self).insert([Boundary(id: 1, name: "a", n: 1)])
        db.didFail = { failures.append(String(describing: $0)) }
        #expect(throws: (any Error).self) { try db.alterTable(BoundaryMisread.self) }
        #expect(failures.items.count == 1, "the blocking form: \(failures.items)")
        await #expect(throws: (any Error).self) { try await db.alterTable(BoundaryMisread.self) }
        #expect(failures.items.count == 2, "the async form: \(failures.items)")
        #expect(try await db.table(Boundary.self).select().map(\.name) == ["a"], "the table is as it was")
        try await db.shutdown()
    }

    func childAndReset<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ failures: Collector<String>) throws {
        let child = try db.createChild()
        #expect(throws: CRUDSQLExeError.self) { try child.sql("SELEKT 3") }
        #expect(failures.items.count == 10, "a child's errors reach the parent's didFail")
        db.didFail = nil
        #expect(throws: CRUDSQLExeError.self) { try db.sql("SELEKT 4") }
        #expect(failures.items.count == 10)
    }
}

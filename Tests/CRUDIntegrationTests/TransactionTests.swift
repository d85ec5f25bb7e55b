import CRUD
import Foundation
import Testing

private struct Abort: Error {}

@Suite("transactions")
struct TransactionTests {
    @Test("a transaction returns its body's value and commits", arguments: Backend.all)
    func commit(_ backend: Backend) throws { try commit(backend.open()) }

    func commit<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        let value = try db.transaction {
            try db.table(Course.self).insert(Course(id: 1, title: "a"))
            return 42
        }
        #expect(value == 42)
        #expect(try db.table(Course.self).count() == 1)
    }

    @Test("an error rolls back and is rethrown", arguments: Backend.all)
    func rollback(_ backend: Backend) throws { try rollback(backend.open()) }

    func rollback<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        #expect(throws: Abort.self) {
            try db.transaction {
                try db.table(Course.self).insert(Course(id: 1, title: "a"))
                throw Abort()
            }
        }
        #expect(try db.table(Course.self).count() == 0)
        #expect(throws: CRUDSQLExeError.self) {
            try db.transaction {
                try db.table(Course.self).insert(Course(id: 1, title: "a"))
                try db.table(Course.self).insert(Course(id: 1, title: "duplicate"))
            }
        }
        #expect(try db.table(Course.self).count() == 0)
        try db.transaction { try db.table(Course.self).insert(Course(id: 2, title: "after")) }
        #expect(try db.table(Course.self).count() == 1, "the connection is usable after a rollback")
    }

    @Test("nested transactions: an inner failure caught by the outer body keeps the outer work", arguments: Backend.all)
    func nested(_ backend: Backend) throws { try nested(backend.open()) }

    func nested<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.transaction {
            try db.table(Course.self).insert(Course(id: 1, title: "outer"))
            do {
                try db.transaction {
                    try db.table(Course.self).insert(Course(id: 2, title: "inner"))
                    try db.transaction { try db.table(Course.self).insert(Course(id: 3, title: "innermost")) }
                    throw Abort()
                }
            } catch is Abort {}
            try db.transaction { try db.table(Course.self).insert(Course(id: 4, title: "second inner")) }
        }
        #expect(try db.table(Course.self).order(by: \.id).select().map(\.id) == [1, 4])

        #expect(throws: Abort.self) {
            try db.transaction {
                try db.transaction { try db.table(Course.self).insert(Course(id: 5, title: "committed inner")) }
                throw Abort()
            }
        }
        #expect(try db.table(Course.self).count() == 2, "an outer rollback undoes released inner work too")
    }

    @Test("a transaction the database ended underneath: later calls throw, the transaction throws, nothing after it commits", arguments: Backend.all)
    func endedUnderneath(_ backend: Backend) throws { try endedUnderneath(backend.open()) }

    func endedUnderneath<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        var failures = 0
        let thrown = #expect(throws: CRUDSQLExeError.self) {
            try db.transaction {
                try db.table(Course.self).insert(Course(id: 1, title: "a"))
                try db.sql("ROLLBACK")
                for id in 2 ... 3 {
                    do { try db.table(Course.self).insert(Course(id: id, title: "outside")) } catch is CRUDSQLExeError { failures += 1 }
                }
                do { try db.transaction {} } catch is CRUDSQLExeError { failures += 1 }
            }
        }
        #expect(failures == 3)
        #expect(thrown?.msg.contains("the transaction is no longer open") == true)
        #expect(try db.table(Course.self).count() == 0, "no statement ran outside the transaction")
        try db.transaction { try db.table(Course.self).insert(Course(id: 4, title: "next")) }
        #expect(try db.table(Course.self).count() == 1, "the next transaction works")
    }
}

import CRUD
import Foundation
import Testing

@Suite("insert, update, delete")
struct WriteTests {
    @Test("lastInsertId asked after the connection inserted again is an error, not another row's id", arguments: Backend.all)
    func staleLastInsertId(_ backend: Backend) throws { try staleLastInsertId(backend.open(), backend) }

    func staleLastInsertId<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Bicycle.self)
        let bikes = db.table(Bicycle.self)
        let stale = try bikes.insert(Bicycle(id: nil, name: "One", color: "red"), ignoreKeys: \.id)
        let later = try bikes.insert(Bicycle(id: nil, name: "Two", color: "red"), ignoreKeys: \.id)
        if backend.insertIdsNeedTheTransaction {
            let refused = #expect(throws: CRUDSQLExeError.self, "lastval() outside the transaction may be another client's") {
                try later.lastInsertId()
            }
            #expect(refused?.msg.contains("behind a transaction pooler") == true)
        } else {
            #expect(try later.lastInsertId() == 2)
        }
        let error = #expect(throws: CRUDSQLExeError.self, "the connection has inserted another row since") { try stale.lastInsertId() }
        #expect(error?.msg.contains("has run other statements since") == true)
        try db.transaction {
            let inside = try bikes.insert(Bicycle(id: nil, name: "Three", color: "red"), ignoreKeys: \.id)
            #expect(try inside.lastInsertId() == 3, "inside a transaction it is asked on the transaction's connection")
        }
    }

    @Test("insert one and many, with setKeys and ignoreKeys, DEFAULT VALUES, lastInsertId", arguments: Backend.all)
    func insert(_ backend: Backend) throws { try insert(backend.open(), backend) }

    func insert<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Bicycle.self)
        let bikes = db.table(Bicycle.self)
        let first = try backend.insertId(on: db) { try bikes.insert(Bicycle(id: nil, name: "One", color: "red"), ignoreKeys: \.id).lastInsertId() }
        let second = try backend.insertId(on: db) {
            try bikes.insert([Bicycle(id: nil, name: "Two", color: "blue"), Bicycle(id: nil, name: "Three", color: "green")], ignoreKeys: \.id).lastInsertId()
        }
        #expect(first == 1)
        #expect(second == 3)
        try bikes.insert(Bicycle(id: 11, name: "Four", color: "white"), setKeys: \.color, \.name)
        try bikes.insert(Bicycle(id: 10, name: "Ten", color: "black"))
        #expect(throws: CRUDSQLExeError.self, "leaving out a non-optional column fails") {
            try bikes.insert(Bicycle(id: 12, name: "Twelve", color: "grey"), setKeys: \.id, \.name)
        }
        let all = try bikes.order(by: \.id).select().map { $0 }
        #expect(all.map(\.id) == [1, 2, 3, 4, 10], "a left-out id is assigned by the database")
        #expect(all.map(\.name) == ["One", "Two", "Three", "Four", "Ten"])
        #expect(all[3].color == "white")

        try db.create(Grade.self)
        try db.table(Grade.self).insert(Grade(id: 1, pupilId: 5, score: 90), setKeys: \.id, \.score)
        #expect(try db.table(Grade.self).first()?.pupilId == nil, "a column left out takes its default")

        try db.sql("CREATE TABLE \(db.quote("Defaults")) (\(db.quote("id")) INTEGER, \(db.quote("name")) TEXT DEFAULT 'unnamed')")
        try db.table(Defaults.self).insert(Defaults(id: 4, name: "x"), ignoreKeys: \.id, \.name)
        #expect(try db.table(Defaults.self).first()?.name == "unnamed", "all keys ignored inserts DEFAULT VALUES")

        #expect(try bikes.insert([Bicycle]()).lastInsertId() == nil, "inserting nothing does nothing")
        #expect(throws: CRUDSQLGenError.self) { try bikes.insert(Bicycle(id: 1, name: "", color: ""), setKeys: \.name.count) }
    }

    @Test("a failing row in a batch insert inserts nothing", arguments: Backend.all)
    func atomicBatch(_ backend: Backend) throws { try atomicBatch(backend.open()) }

    func atomicBatch<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        #expect(throws: CRUDSQLExeError.self) {
            try db.table(Course.self).insert([Course(id: 1, title: "a"), Course(id: 2, title: "b"), Course(id: 1, title: "duplicate")])
        }
        #expect(try db.table(Course.self).count() == 0)
    }

    @Test("update the whole object, setKeys, ignoreKeys, with and without where", arguments: Backend.all)
    func update(_ backend: Backend) throws { try update(backend.open()) }

    func update<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self)
        let pupils = db.table(Pupil.self)
        try pupils.insert([Pupil(id: 1, name: "Ann", nickname: "A"), Pupil(id: 2, name: "Bob", nickname: "B"), Pupil(id: 3, name: "Cy")])

        let changed = try pupils.where(\Pupil.id == 1).update(Pupil(id: 1, name: "Anne", nickname: nil))
        #expect(changed.changedRows == 1)
        #expect(try pupils.where(\Pupil.id == 1).first() == Pupil(id: 1, name: "Anne", nickname: nil))

        try pupils.where(\Pupil.id == 2).update(Pupil(id: 99, name: "Robert", nickname: "Rob"), setKeys: \.name)
        #expect(try pupils.where(\Pupil.id == 2).first() == Pupil(id: 2, name: "Robert", nickname: "B"))

        try pupils.where(\Pupil.id == 3).update(Pupil(id: 99, name: "Cyrus", nickname: "C"), ignoreKeys: \.id)
        #expect(try pupils.where(\Pupil.id == 3).first() == Pupil(id: 3, name: "Cyrus", nickname: "C"))

        let all = try pupils.update(Pupil(id: 0, name: "Same", nickname: nil), setKeys: \.name)
        #expect(all.changedRows == 3)
        #expect(try pupils.where(\Pupil.name == "Same").count() == 3)

        #expect(throws: CRUDSQLGenError.self) {
            try pupils.update(Pupil(id: 0, name: "", nickname: nil), ignoreKeys: \.id, \.name, \.nickname)
        }
    }

    @Test("delete with and without where", arguments: Backend.all)
    func delete(_ backend: Backend) throws { try delete(backend.open()) }

    func delete<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        let courses = db.table(Course.self)
        try courses.insert((1 ... 5).map { Course(id: $0, title: "c\($0)") })
        #expect(try courses.where(\Course.id > 3).delete().changedRows == 2)
        #expect(try courses.select().map(\.id) == [1, 2, 3])
        #expect(try courses.delete().changedRows == 3)
        #expect(try courses.count() == 0)
    }
}

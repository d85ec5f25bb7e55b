import CRUD
import Foundation
import Testing

@Suite("order and limit")
struct OrderLimitTests {
    @Test("order by several key paths, ascending and descending, optional columns included", arguments: Backend.all)
    func ordering(_ backend: Backend) throws { try ordering(backend.open()) }

    func ordering<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try WhereTests.pupils(configuration)
        try db.table(Pupil.self).insert(Pupil(id: 5, name: "Ann", nickname: nil))
        let table = db.table(Pupil.self)
        #expect(try table.order(by: \.name, \.id).select().map(\.id) == [1, 5, 2, 3, 4])
        #expect(try table.order(by: \.name).order(descending: \.id).select().map(\.id) == [5, 1, 2, 3, 4])
        #expect(try table.order(descending: \.name, \.id).select().map(\.id) == [4, 3, 2, 5, 1])
        #expect(try table.order(by: \.nickname, \.id).select().map(\.id) == [2, 5, 4, 3, 1], "NULLs first when ascending")
        #expect(try table.order(descending: \.nickname).order(by: \.id).select().map(\.id) == [1, 3, 4, 2, 5], "NULLs last when descending")
        #expect(throws: CRUDSQLGenError.self) { try table.order(by: \.name.count).select() }
    }

    @Test("limit and skip, and every range form", arguments: Backend.all)
    func limits(_ backend: Backend) throws { try limits(backend.open()) }

    func limits<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.table(Course.self).insert((0 ..< 10).map { Course(id: $0, title: "c\($0)") })
        let ordered = db.table(Course.self).order(by: \.id)
        #expect(try ordered.limit(3).select().map(\.id) == [0, 1, 2])
        #expect(try ordered.limit(3, skip: 4).select().map(\.id) == [4, 5, 6])
        #expect(try ordered.limit(2 ..< 5).select().map(\.id) == [2, 3, 4])
        #expect(try ordered.limit(2 ... 5).select().map(\.id) == [2, 3, 4, 5])
        #expect(try ordered.limit(7...).select().map(\.id) == [7, 8, 9])
        #expect(try ordered.limit(...2).select().map(\.id) == [0, 1, 2])
        #expect(try ordered.limit(..<2).select().map(\.id) == [0, 1])
        #expect(try ordered.limit(0).select().map(\.id) == [])
        #expect(try ordered.limit(5, skip: 8).count() == 2)
        #expect(try ordered.limit(20...).count() == 0)
        #expect(try ordered.limit(3, skip: 4).first()?.id == 4)
        #expect(try db.table(Course.self).limit(3).order(by: \.id).select().map(\.id).count == 3)
        #expect(throws: CRUDSQLGenError.self) { try ordered.limit(-1).select() }
        #expect(throws: CRUDSQLGenError.self) { try ordered.limit(1, skip: -1).count() }
        #expect(throws: CRUDSQLGenError.self) { try ordered.limit(-3 ..< 2).first() }
    }
}

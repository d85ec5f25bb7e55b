import CRUD
import Foundation
import Testing

@Suite("select, first, count")
struct SelectTests {
    @Test("select is lazy and runs again on each iteration", arguments: Backend.all)
    func lazy(_ backend: Backend) throws { try lazy(backend.open()) }

    func lazy<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        let query = try db.table(Course.self).order(by: \.id).select()
        try db.table(Course.self).insert(Course(id: 1, title: "a"))
        #expect(Array(query).map(\.id) == [1], "rows inserted after select() are seen")
        try db.table(Course.self).insert(Course(id: 2, title: "b"))
        var seen: [Int] = []
        for course in query { seen.append(course.id) }
        #expect(seen == [1, 2])
        #expect(try query.map(\.title) == ["a", "b"])
        var titles: [String] = []
        try query.forEach { titles.append($0.title) }
        #expect(titles == ["a", "b"])
    }

    @Test("first and count", arguments: Backend.all)
    func firstAndCount(_ backend: Backend) throws { try firstAndCount(backend.open()) }

    func firstAndCount<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        #expect(try db.table(Course.self).first() == nil)
        #expect(try db.table(Course.self).count() == 0)
        try db.table(Course.self).insert((1 ... 5).map { Course(id: $0, title: "c\($0)") })
        #expect(try db.table(Course.self).order(descending: \.id).first()?.id == 5)
        #expect(try db.table(Course.self).where(\Course.id > 2).count() == 3)
        #expect(try db.table(Course.self).order(by: \.id).limit(2, skip: 1).count() == 2)
    }

    @Test("a failure while iterating is thrown by the throwing forms, never a short result", arguments: Backend.all)
    func failureDuringIteration(_ backend: Backend) throws { try failureDuringIteration(backend.open()) }

    func failureDuringIteration<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.sql("CREATE TABLE \"Strict\" (\"id\" INTEGER, \"name\" TEXT)")
        try db.sql("INSERT INTO \"Strict\" (\"id\", \"name\") VALUES (1, 'fine'), (2, NULL), (3, 'fine')")
        let query = try db.table(Strict.self).order(by: \.id).select()
        let error = #expect(throws: CRUDDecoderError.self) { try query.map(\.id) }
        #expect(error?.msg == "reading Strict: column \"name\": NULL where a value is required (the property is not optional)")
        var visited: [Int] = []
        #expect(throws: CRUDDecoderError.self) { try query.forEach { visited.append($0.id) } }
        #expect(visited == [1])
        let cursor = try query.cursor()
        #expect(try cursor.next()?.id == 1)
        #expect(throws: CRUDDecoderError.self) { try cursor.next() }
        #expect(try cursor.next() == nil, "a cursor is finished after an error")
        #expect(throws: CRUDDecoderError.self) { try db.table(Strict.self).where(\Strict.id == 2).first() }
    }

    @Test("an abandoned cursor gives its statement back", arguments: Backend.all)
    func abandonedCursor(_ backend: Backend) throws { try abandonedCursor(backend.open()) }

    func abandonedCursor<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.table(Course.self).insert((1 ... 3).map { Course(id: $0, title: "c\($0)") })
        let query = try db.table(Course.self).order(by: \.id).select()
        for course in query where course.id == 1 { break }
        do {
            let cursor = try query.cursor()
            _ = try cursor.next()
        }
        try db.transaction {
            try db.table(Course.self).insert(Course(id: 4, title: "d"))
        }
        #expect(try query.map(\.id) == [1, 2, 3, 4])
        // The same query nested in its own iteration uses a second statement.
        var pairs = 0
        try query.forEach { _ in pairs += try query.map(\.id).count }
        #expect(pairs == 16)
    }
}

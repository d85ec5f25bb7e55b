import CRUD
import Foundation
import Testing

@Suite("select, first, count")
struct SelectTests {
    @Test("select reads its rows when it runs; a stored Select yields the same rows again; streaming forms read as they go", arguments: Backend.all)
    func readAtSelect(_ backend: Backend) throws { try readAtSelect(backend.open()) }

    func readAtSelect<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.table(Course.self).insert(Course(id: 1, title: "a"))
        let query = db.table(Course.self).order(by: \.id)
        let stored = try query.select()
        try db.table(Course.self).insert(Course(id: 2, title: "b"))
        #expect(stored.map(\.id) == [1], "rows inserted after select() are not in its results")
        var seen: [Int] = []
        for course in stored { seen.append(course.id) }
        for course in stored { seen.append(course.id) }
        #expect(seen == [1, 1], "iterating a stored Select again yields the same rows")
        #expect(stored.count == 1 && stored.first?.title == "a" && stored[0].id == 1)
        #expect(try query.select().map(\.id) == [1, 2], "a new select() runs the query again")
        var streamed: [String] = []
        try query.forEach { streamed.append($0.title) }
        #expect(streamed == ["a", "b"])
        let cursor = try query.cursor()
        #expect(try cursor.next()?.id == 1)
        #expect(try cursor.next()?.id == 2)
        #expect(try cursor.next() == nil)
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

    @Test("a bad row at row 500 is thrown by select(), so no for-in or Sequence method can stop the program", arguments: Backend.all)
    func failureDuringIteration(_ backend: Backend) throws { try failureDuringIteration(backend.open()) }

    func failureDuringIteration<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.sql("CREATE TABLE \(db.quote("Strict")) (\(db.quote("id")) INTEGER, \(db.quote("name")) TEXT)")
        try db.table(Strict.self).insert((1 ... 1_000).map { Strict(id: $0, name: "fine") })
        try db.sql("UPDATE \(db.quote("Strict")) SET \(db.quote("name")) = NULL WHERE \(db.quote("id")) = 500")
        let query = db.table(Strict.self).order(by: \.id)
        let expected = "reading Strict: column \"name\": NULL where a value is required (the property is not optional)"

        var visited = 0
        let forIn = #expect(throws: CRUDDecoderError.self) {
            for _ in try query.select() { visited += 1 }
        }
        #expect(forIn?.msg == expected)
        #expect(visited == 0, "the loop never starts on results that could not be read")
        #expect(throws: CRUDDecoderError.self) { _ = try query.select().filter { $0.id > 10 } }
        #expect(throws: CRUDDecoderError.self) { _ = try query.select().contains { $0.id == 1 } }
        #expect(throws: CRUDDecoderError.self) { _ = try query.select().reduce(0) { $0 + $1.id } }
        #expect(throws: CRUDDecoderError.self) { _ = Array(try query.select()) }
        #expect(throws: CRUDDecoderError.self) { _ = try query.select().map { $0 } }

        var streamed: [Int] = []
        #expect(throws: CRUDDecoderError.self) { try query.forEach { streamed.append($0.id) } }
        #expect(streamed == Array(1 ... 499), "forEach streams: the rows before the bad one were passed on")
        let cursor = try query.cursor()
        for id in 1 ... 499 { #expect(try cursor.next()?.id == id) }
        #expect(throws: CRUDDecoderError.self) { try cursor.next() }
        #expect(try cursor.next() == nil, "a cursor is finished after an error")
        #expect(throws: CRUDDecoderError.self) { try db.table(Strict.self).where(\Strict.id == 500).first() }
        #expect(try query.where(\Strict.id != 500).select().count == 999)
    }

    @Test("an abandoned cursor gives its statement back", arguments: Backend.all)
    func abandonedCursor(_ backend: Backend) throws { try abandonedCursor(backend.open()) }

    func abandonedCursor<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Course.self)
        try db.table(Course.self).insert((1 ... 3).map { Course(id: $0, title: "c\($0)") })
        let query = db.table(Course.self).order(by: \.id)
        do {
            let cursor = try query.cursor()
            _ = try cursor.next()
        }
        try db.transaction {
            try db.table(Course.self).insert(Course(id: 4, title: "d"))
        }
        #expect(try query.select().map(\.id) == [1, 2, 3, 4])
        // The same query nested in its own iteration uses a second statement.
        var pairs = 0
        try query.forEach { _ in pairs += try query.select().count }
        #expect(pairs == 16)
    }

    @Test("first() reads one row without a cursor: each call binds anew, in and out of transactions, threads sharing the shape",
          arguments: Backend.all)
    func firstRowRepeated(_ backend: Backend) async throws { try await firstRowRepeated(backend.open()) }

    func firstRowRepeated<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try readFirstRows(db)
        // Tasks at once, on several connections, each with the statement of the shape its own.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0 ..< 8 {
                group.addTask {
                    try await onThread {
                        try (1 ... 40).filter { $0 != 2 && $0 % 8 == task }.allSatisfy { id in
                            try db.table(Course.self).where(\Course.id == id).first()?.title == "course \(id)"
                        }
                    }
                }
            }
            for try await allFound in group { #expect(allFound) }
        }
    }

    func readFirstRows<C: DatabaseConfigurationProtocol>(_ db: Database<C>) throws {
        try db.create(Course.self)
        try db.table(Course.self).insert((1 ... 40).map { Course(id: $0, title: "course \($0)") })
        for id in 1 ... 40 {
            #expect(try db.table(Course.self).where(\Course.id == id).first()?.title == "course \(id)")
        }
        #expect(try db.table(Course.self).where(\Course.id == 41).first() == nil)
        try db.transaction {
            for id in [3, 1, 2] {
                #expect(try db.table(Course.self).where(\Course.id == id).first()?.id == id)
            }
            try db.table(Course.self).where(\Course.id == 2).delete()
            #expect(try db.table(Course.self).where(\Course.id == 2).first() == nil, "the transaction's own delete is seen")
        }
        #expect(try db.table(Course.self).order(descending: \.id).first()?.id == 40, "another shape, with an order")
        #expect(try db.table(Course.self).order(by: \.id).limit(1, skip: 5).first()?.id == 7, "the skip is kept, the limit is one")
        // More shapes than the select cache keeps (lists of every length up to 300): a shape whose
        // place a new one takes gives up its slot, which a later shape gets, and each connection
        // replaces the statement it kept at a slot by the new shape's.
        for round in 0 ..< 2 {
            for length in 1 ... 300 {
                let ids = Array(stride(from: length, through: 1, by: -1))
                let found = try db.table(Course.self).order(descending: \.id).where(\Course.id ~ ids).first()?.id
                #expect(found == (length == 2 ? 1 : Swift.min(length, 40)), "round \(round), \(length) ids")
            }
        }
    }
}

@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

/// What a service's list endpoints need: filters made from optional parts, pages with their total,
/// and updates of the fields a request sent, on every backend.
@Suite("filters, pages and partial updates")
struct PagingTests {
    static let chores = (1 ... 20).map { Chore(id: $0, owner: $0 % 3, title: "chore \($0)", done: $0 % 2 == 0, priority: $0 % 4) }

    @Test("conditions from optional parts: one query serves every combination, for select, count and page", arguments: Backend.all)
    func optionalFilters(_ backend: Backend) async throws {
        try await optionalFilters(backend.open())
    }

    func optionalFilters<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Chore.self, policy: .dropTable)
        try await db.table(Chore.self).insert(Self.chores)
        for done in [nil, true, false] {
            for owner in [nil, 1] {
                var conditions: [CRUDBooleanExpression] = []
                if let done { conditions.append(\Chore.done == done) }
                if let owner { conditions.append(\Chore.owner == owner) }
                let expected = Self.chores.filter { chore in (done.map { chore.done == $0 } ?? true) && (owner.map { chore.owner == $0 } ?? true) }
                let query = db.table(Chore.self).order(by: \.id).where(conditions)
                #expect(try await query.select().map(\.id) == expected.map(\.id), "done \(String(describing: done)), owner \(String(describing: owner))")
                #expect(try await query.count() == expected.count)
                let page = try await query.page(1, size: 3)
                #expect(page.items.map(\.id) == Array(expected.map(\.id).prefix(3)))
                #expect(page.total == expected.count)
            }
        }
        try await db.shutdown()
    }

    @Test("pages follow the order, with the primary key breaking ties, and say how many rows and pages there are", arguments: Backend.all)
    func pages(_ backend: Backend) async throws {
        try await pages(backend.open())
    }

    func pages<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Chore.self, policy: .dropTable)
        // Inserted out of order, so that the table's own order is not the primary key's.
        try await db.table(Chore.self).insert(Self.chores.reversed())
        let byPriority = db.table(Chore.self).order(by: \.priority)
        var seen: [Int] = []
        for number in 1 ... 3 {
            let page = try await byPriority.page(number, size: 7)
            #expect(page.total == 20 && page.pageCount == 3 && page.number == number && page.size == 7)
            seen += page.items.map(\.id)
        }
        // Equal priorities keep one order from page to page: the primary key's.
        #expect(seen == Self.chores.sorted { ($0.priority, $0.id) < ($1.priority, $1.id) }.map(\.id))
        #expect(try await byPriority.page(4, size: 7).items.isEmpty)
        // Without an order, the primary key's; the synchronous form gives the same.
        #expect(try Self.page(db.table(Chore.self), 2, size: 5).items.map(\.id) == Array(6 ... 10))
        #expect(try await db.table(Chore.self).where(\Chore.id > 100).page(1, size: 5) == CRUDPage(items: [], total: 0, number: 1, size: 5))

        let zero = await #expect(throws: CRUDSQLGenError.self) { try await byPriority.page(0, size: 7) }
        #expect(zero?.msg.contains("numbered from 1") == true)
        await #expect(throws: CRUDSQLGenError.self) { try await byPriority.page(1, size: 0) }
        await #expect(throws: CRUDSQLGenError.self) { try await byPriority.limit(5).page(1, size: 2) }
        await #expect(throws: CRUDSQLGenError.self) { try await byPriority.page(Int.max, size: 2) }

        // A table without a primary key pages only in an order that tells its rows apart.
        try await db.create(Tag.self, policy: .dropTable)
        try await db.table(Tag.self).insert([Tag(label: "b", weight: 1), Tag(label: "a", weight: 2), Tag(label: "a", weight: 1)])
        let unordered = await #expect(throws: CRUDSQLGenError.self) { try await db.table(Tag.self).page(1, size: 2) }
        #expect(unordered?.msg.contains("no primary key") == true)
        let tags = try await db.table(Tag.self).order(by: \.label, \.weight).page(1, size: 2)
        #expect(tags.items == [Tag(label: "a", weight: 1), Tag(label: "a", weight: 2)])
        try await db.shutdown()
    }

    static func page<T: SelectAble>(_ query: T, _ number: Int, size: Int) throws -> CRUDPage<T.OverAllForm> {
        try query.page(number, size: size)
    }

    @Test("a joined query pages its root rows, each with all its children", arguments: Backend.all)
    func joinedPages(_ backend: Backend) async throws {
        try await joinedPages(backend.open())
    }

    func joinedPages<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Pupil.self, policy: .dropTable)
        try await db.create(Grade.self, policy: .dropTable)
        try await db.table(Pupil.self).insert((1 ... 5).map { Pupil(id: $0, name: "pupil \($0)", nickname: nil) })
        try await db.table(Grade.self).insert((1 ... 5).flatMap { pupil in [Grade(id: pupil * 10, pupilId: pupil, score: 1), Grade(id: pupil * 10 + 1, pupilId: pupil, score: 2)] })
        let pupils = try db.table(Pupil.self).join(\.grades, on: \.id, equals: \.pupilId).order(by: \Grade.id)
        let page = try await pupils.page(2, size: 2)
        #expect(page.total == 5)
        #expect(page.items.map(\.id) == [3, 4])
        #expect(page.items.map { $0.grades?.map(\.id) } == [[30, 31], [40, 41]])
        try await db.shutdown()
    }

    @Test("an update sets the columns a list made at run time names, and refuses an empty or unknown one before writing", arguments: Backend.all)
    func partialUpdates(_ backend: Backend) async throws {
        try await partialUpdates(backend.open())
    }

    func partialUpdates<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Chore.self, policy: .dropTable)
        try await db.table(Chore.self).insert(Self.chores)
        // A PATCH that sent a title and a priority, not `done`.
        var sent: [PartialKeyPath<Chore>] = [\Chore.title]
        sent.append(\Chore.priority)
        let changed = Chore(id: 3, owner: 99, title: "patched", done: true, priority: 9)
        let updated = try await db.table(Chore.self).where(\Chore.id == 3).update(changed, setKeys: sent)
        #expect(updated.changedRows == 1)
        #expect(try await db.table(Chore.self).where(\Chore.id == 3).first() == Chore(id: 3, owner: 0, title: "patched", done: false, priority: 9))

        let empty = await #expect(throws: CRUDSQLGenError.self) { try await db.table(Chore.self).where(\Chore.id == 4).update(changed, setKeys: []) }
        #expect(empty?.msg.contains("no key paths") == true)
        let unknown = #expect(throws: CRUDSQLGenError.self) { try Self.updateSync(db, changed, setKeys: [\Chore.title, \Chore.headline]) }
        #expect(unknown?.msg.contains("names no column of Chore") == true)
        #expect(try await db.table(Chore.self).where(\Chore.id == 4).first() == Self.chores[3])
        try await db.shutdown()
    }

    static func updateSync<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ chore: Chore, setKeys: [PartialKeyPath<Chore>]) throws {
        try db.table(Chore.self).where(\Chore.id == 4).update(chore, setKeys: setKeys)
    }
}

import CRUD
#if MySQL
import CRUDMySQL
#endif
import CRUDPostgres
import CRUDSQLite
import Foundation
import Testing

/// `AnyDatabase`: one database type whichever driver a URL picks. (`CRUD_TEST_ANY_DATABASE=1` also
/// runs the whole shared suite through it.)
@Suite("AnyDatabase")
struct AnyDatabaseTests {
    static var drivers: [CRUDDriver] {
        #if MySQL
        [.sqlite, .postgres, .mysql]
        #else
        [.sqlite, .postgres]
        #endif
    }

    /// What an app's helpers do with the database it picked, written once, with no generic
    /// parameter: the chain, joins, pages, transactions, sync and async.
    static func shelve(_ db: AnyDatabase) async throws -> (shelves: [Shelf], page: CRUDPage<Book>, kept: Int) {
        try await db.create(Book.self, policy: .dropTable)
        try await db.create(Shelf.self, policy: .dropTable)
        try await db.table(Shelf.self).insert([Shelf(id: 1, bookCount: 2), Shelf(id: 2, bookCount: 1)])
        try insertBooks(db)
        try await db.transaction { tx in
            try await tx.table(Book.self).insert(Book(id: 13, shelfId: 2))
            try await tx.table(Shelf.self).where(\Shelf.id == 2).update(Shelf(id: 2, bookCount: 2), setKeys: \.bookCount)
        }
        await #expect(throws: CRUDSQLExeError.self) {
            try await db.transaction { tx in
                try await tx.table(Book.self).insert(Book(id: 14, shelfId: 2))
                try await tx.table(Book.self).insert(Book(id: 14, shelfId: 2))
            }
        }
        let shelves = try await db.table(Shelf.self).order(by: \.id).join(\.books, on: \.id, equals: \.shelfId).select()
        let page = try await db.table(Book.self).order(descending: \.id).where(\Book.shelfId == 2).page(1, size: 1)
        return (Array(shelves), page, try deleteFirstBook(db))
    }

    /// The synchronous forms, which an async caller's overloads would not pick.
    static func insertBooks(_ db: AnyDatabase) throws {
        try db.table(Book.self).insert([Book(id: 10, shelfId: 1), Book(id: 11, shelfId: 1), Book(id: 12, shelfId: 2)])
    }

    /// Deletes book 10 and counts the books left, synchronously.
    static func deleteFirstBook(_ db: AnyDatabase) throws -> Int {
        try db.table(Book.self).where(\Book.id == 10).delete()
        return try db.table(Book.self).count()
    }

    @Test("AnyDatabase(url:) opens each backend by its URL's scheme, and one non-generic function works on all of them", arguments: Backend.all)
    func byURL(_ backend: Backend) async throws {
        let db = try AnyDatabase(url: backend.freshURL(), drivers: Self.drivers)
        #expect(db.configuration.databaseSystem == backend.databaseName)
        let (shelves, page, kept) = try await Self.shelve(db)
        #expect(shelves.map(\.id) == [1, 2])
        #expect(shelves.map { $0.books?.map(\.id) } == [[10, 11], [12, 13]])
        #expect(shelves.map(\.bookCount) == [2, 2])
        #expect(page.items.map(\.id) == [13])
        #expect(page.total == 2)
        #expect(kept == 3, "book 14 rolled back, book 10 deleted")
        try await db.shutdown()
    }

    @Test("a URL no driver given takes, or with no scheme or path, is refused with what to do; the message never shows the URL")
    func refusedURLs() throws {
        let unknown = #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "redis://admin:s3cret@cache/0", drivers: Self.drivers) }
        #expect(unknown?.msg.contains("'redis'") == true)
        #expect(unknown?.msg.contains("'postgresql'") == true, "names the schemes the drivers take")
        #expect(unknown?.msg.contains("s3cret") == false)
        let missing = #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "postgres://admin:s3cret@db/app", drivers: [.sqlite]) }
        #expect(missing?.msg.contains("add it to drivers") == true)
        #expect(missing?.msg.contains("s3cret") == false)
        #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "todos.db", drivers: Self.drivers) }
        let empty = #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "sqlite:", drivers: Self.drivers) }
        #expect(empty?.msg.contains("names no database") == true)
    }

    @Test("erasing a configuration takes over its connection (an in-memory database keeps its rows) and shuts it, with a clear error")
    func erasing() throws {
        let memory = try SQLiteDatabaseConfiguration(":memory:")
        let original = Database(configuration: memory)
        try original.create(Tally.self)
        try original.table(Tally.self).insert(Tally(id: 1, value: 41))
        let db = try AnyDatabase(erasing: memory)
        #expect(try db.table(Tally.self).select().map(\.value) == [41])
        try db.table(Tally.self).where(\Tally.id == 1).update(Tally(id: 1, value: 42))
        let refused = #expect(throws: CRUDSQLExeError.self) { try original.table(Tally.self).count() }
        #expect(refused?.kind == .shutDown)
        #expect(refused?.msg.contains("AnyDatabase") == true)
        #expect(try db.table(Tally.self).select().map(\.value) == [42])
        try db.shutdown()
    }
}

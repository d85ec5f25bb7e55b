import CRUD
import Foundation
import Testing

/// The stores a repository can sit on; the conformance suite runs over each.
enum Store: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlite, postgres, mysql

    var testDescription: String { rawValue }

    static let all = allCases.filter { store in
        switch store {
        case .memory, .sqlite: true
        case .postgres: !PostgresTestServer.isSkipped
        case .mysql: !Backend.mysqlSkipped
        }
    }

    /// An empty repository of `Model` in this store.
    func repository<Model: CRUDIdentifiedModel & Sendable>(of model: Model.Type) async throws -> any CRUDRepository<Model>
        where Model.CRUDID: Sendable {
        switch self {
        case .memory: return InMemoryRepository<Model>()
        case .sqlite: return try await Self.databaseRepository(Model.self, Backend.sqlite.open())
        case .postgres: return try await Self.databaseRepository(Model.self, Backend.postgres.open())
        case .mysql: return try await Self.databaseRepository(Model.self, Backend.mysql.open())
        }
    }

    private static func databaseRepository<Model: CRUDIdentifiedModel & Sendable, C: DatabaseConfigurationProtocol>(
        _ model: Model.Type, _ configuration: C
    ) async throws -> any CRUDRepository<Model> where Model.CRUDID: Sendable {
        let db = Database(configuration: configuration)
        try await db.create(Model.self)
        return DatabaseRepository(db, of: Model.self)
    }
}

/// One conformance suite over every store: the proof that they can be swapped.
@Suite("repository")
struct RepositoryTests {
    @Test("create, read, update, delete by id with the article's errors; readAll and pages ordered by id", arguments: Store.all)
    func operations(_ store: Store) async throws {
        let repository = try await store.repository(of: Cycle.self)
        for id in [3, 1, 2] { try await repository.create(Cycle(id: id, color: "c\(id)", gears: id)) }
        #expect(try await repository.read(id: 2) == Cycle(id: 2, color: "c2", gears: 2))
        #expect(try await repository.readAll().map(\.id) == [1, 2, 3])
        #expect(try await repository.exists(id: 3))
        #expect(try await !repository.exists(id: 4))

        try await repository.update(Cycle(id: 2, color: "blue", gears: 7))
        #expect(try await repository.read(id: 2) == Cycle(id: 2, color: "blue", gears: 7))
        try await repository.delete(id: 2)
        #expect(try await repository.readAll().map(\.id) == [1, 3])

        await #expect(throws: CRUDRepositoryError.recordNotFound(id: "2")) { try await repository.read(id: 2) }
        await #expect(throws: CRUDRepositoryError.recordNotFound(id: "2")) { try await repository.delete(id: 2) }
        await #expect(throws: CRUDRepositoryError.recordNotFound(id: "9")) { try await repository.update(Cycle(id: 9, color: "x", gears: 9)) }
        await #expect(throws: CRUDRepositoryError.alreadyExists(id: "1")) { try await repository.create(Cycle(id: 1, color: "again", gears: 1)) }
        #expect(try await repository.read(id: 1) == Cycle(id: 1, color: "c1", gears: 1), "the failed create changed nothing")

        for id in 10 ..< 33 { try await repository.create(Cycle(id: id, color: "p\(id)", gears: id)) }
        let all = try await repository.readAll()
        var paged: [Cycle] = []
        for page in 0... {
            let items = try await repository.read(page: page, size: 10)
            if items.isEmpty { break }
            #expect(items.count == (page < 2 ? 10 : 5))
            paged += items
        }
        #expect(paged == all, "the pages are readAll in order")
        #expect(try await repository.read(page: Int.max, size: 10).isEmpty)
        await #expect(throws: CRUDRepositoryError.invalidPage(page: -1, size: 10)) { try await repository.read(page: -1, size: 10) }
        await #expect(throws: CRUDRepositoryError.invalidPage(page: 0, size: 0)) { try await repository.read(page: 0, size: 0) }
    }

    @Test("the identifier's type is the model's id type (UUID here), ordered as the database orders it", arguments: Store.all)
    func uuidIdentifiers(_ store: Store) async throws {
        let repository = try await store.repository(of: Token.self)
        let ids = (0 ..< 20).map { _ in UUID() }
        for (index, id) in ids.enumerated() { try await repository.create(Token(id: id, label: "t\(index)")) }
        #expect(try await repository.read(id: ids[7]).label == "t7")
        let sorted = ids.sorted { a, b in withUnsafeBytes(of: a.uuid) { x in withUnsafeBytes(of: b.uuid) { x.lexicographicallyPrecedes($0) } } }
        #expect(try await repository.readAll().map(\.id) == sorted)
        let missing = UUID()
        await #expect(throws: CRUDRepositoryError.recordNotFound(id: missing.uuidString)) { try await repository.delete(id: missing) }
    }

    @Test("8 tasks at once, each creating, reading, updating and deleting its own items", arguments: Store.all)
    func concurrentUse(_ store: Store) async throws {
        let repository = try await store.repository(of: Cycle.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0 ..< 8 {
                group.addTask {
                    for n in 0 ..< 40 {
                        let id = worker * 1_000 + n
                        try await repository.create(Cycle(id: id, color: "w\(worker)", gears: n))
                        #expect(try await repository.read(id: id).gears == n)
                        if n.isMultiple(of: 2) {
                            try await repository.update(Cycle(id: id, color: "w\(worker)", gears: n + 1_000))
                        } else {
                            try await repository.delete(id: id)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let left = try await repository.readAll()
        #expect(left.count == 8 * 20)
        #expect(left.allSatisfy { $0.id.isMultiple(of: 2) && $0.gears == $0.id % 1_000 + 1_000 })
    }
}

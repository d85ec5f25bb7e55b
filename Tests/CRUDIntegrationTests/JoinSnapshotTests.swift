@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

/// A join runs two statements, the parents' and the children's; outside a transaction of the
/// caller's they read one snapshot, so that a writer committing between them is seen by both or by
/// neither.
@Suite("joins read one snapshot")
struct JoinSnapshotTests {
    @Test("a writer adding children while joins read them: every shelf read has exactly the books it counts", arguments: Backend.all)
    func joinsReadOneSnapshot(_ backend: Backend) async throws {
        try await joinsReadOneSnapshot(backend.open())
    }

    func joinsReadOneSnapshot<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Shelf.self, policy: .dropTable)
        try await db.create(Book.self, policy: .dropTable)
        try await db.table(Shelf.self).insert((1 ... 4).map { Shelf(id: $0, bookCount: 0) })
        let finished = Collector<Bool>()
        let writing = Task {
            defer { finished.append(true) }
            // Each transaction adds a book and counts it: committed, the two always agree.
            for id in 1 ... 600 {
                let shelf = id % 4 + 1
                try await db.transaction { tx in
                    try await tx.table(Book.self).insert(Book(id: id, shelfId: shelf))
                    let count = try await tx.table(Book.self).where(\Book.shelfId == shelf).count()
                    try await tx.table(Shelf.self).where(\Shelf.id == shelf).update(Shelf(id: shelf, bookCount: count), setKeys: \.bookCount)
                }
            }
        }
        var reads = 0
        var disagreements: [String] = []
        let shelves = try db.table(Shelf.self).order(by: \.id).join(\.books, on: \.id, equals: \.shelfId)
        while finished.items.isEmpty, reads < 2_000 {
            for shelf in try await shelves.select() where shelf.books?.count != shelf.bookCount {
                disagreements.append("shelf \(shelf.id): \(shelf.bookCount) counted, \(shelf.books?.count ?? -1) read")
            }
            reads += 1
        }
        try await writing.value
        #expect(reads > 10, "the joins ran while the writer wrote")
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(reads) joins read parents and children from different states: \(disagreements.prefix(3))")
        try await db.shutdown()
    }
}

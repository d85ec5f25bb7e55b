@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

/// `forUpdate()` and `forShare()`: a read-modify-write that no other transaction can interleave.
@Suite("row locks")
struct RowLockTests {
    /// Two tasks add 1 to one tally `increments` times each, every time reading it (locked or not)
    /// and writing it back in a transaction of its own; the final value.
    static func increment<C: DatabaseConfigurationProtocol>(_ db: Database<C>, locked: Bool, increments: Int) async throws -> Int {
        try await db.create(Tally.self, policy: .dropTable)
        try await db.table(Tally.self).insert(Tally(id: 1, value: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0 ..< 2 {
                group.addTask {
                    for _ in 0 ..< increments {
                        try await db.transaction { tx in
                            let tally = tx.table(Tally.self).where(\Tally.id == 1)
                            let read = locked ? try await tally.forUpdate().first() : try await tally.first()
                            let current = try #require(read)
                            try await tally.update(Tally(id: 1, value: current.value + 1))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return try #require(try await db.table(Tally.self).first()).value
    }

    @Test("two tasks incrementing one row through read-lock-update, 1,000 times each, end at 2,000", arguments: Backend.all)
    func lockedIncrements(_ backend: Backend) async throws {
        try await lockedIncrements(backend.open())
    }

    func lockedIncrements<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        #expect(try await Self.increment(db, locked: true, increments: 1_000) == 2_000)
        try await db.shutdown()
    }

    @Test("without the lock, PostgreSQL loses increments: the test above can fail", .enabled(if: Backend.all.contains(.postgres)))
    func unlockedIncrementsAreLost() async throws {
        try await unlockedIncrementsAreLost(Backend.postgres.open())
    }

    func unlockedIncrementsAreLost<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        #expect(try await Self.increment(db, locked: false, increments: 1_000) < 2_000)
        try await db.shutdown()
    }

    @Test("a shared lock reads in a transaction; a lock outside one is refused, and count() counts without locking", arguments: Backend.all)
    func sharedLocksAndMistakes(_ backend: Backend) async throws {
        try await sharedLocksAndMistakes(backend.open())
    }

    func sharedLocksAndMistakes<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Tally.self, policy: .dropTable)
        try await db.table(Tally.self).insert([Tally(id: 1, value: 5), Tally(id: 2, value: 7)])
        let shared = try await db.transaction { tx in
            try await tx.table(Tally.self).order(by: \.id).where(\Tally.value > 0).forShare().select().map(\.value)
        }
        #expect(shared == [5, 7])
        let outside = await #expect(throws: CRUDSQLGenError.self) { try await db.table(Tally.self).forUpdate().first() }
        #expect(outside?.msg.contains("inside transaction") == true)
        await #expect(throws: CRUDSQLGenError.self) { try await db.table(Tally.self).forShare().select() }
        #expect(try await db.table(Tally.self).forUpdate().count() == 2)
        try await db.shutdown()
    }
}

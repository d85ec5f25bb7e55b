import CRUD
import Foundation
import Testing

/// `CRUDTimestamped`: the library writes `createdAt` on inserts and `updatedAt` on every write,
/// from its own clock, whatever the instance holds and the key lists name.
@Suite("timestamps")
struct TimestampTests {
    /// What the tests put on instances, which no write may store.
    static let placeholder = Date(timeIntervalSince1970: 86_400)

    /// Whether `date` was taken between `start` and `end`, give or take the microsecond the
    /// databases round stored times to.
    static func isStamped(_ date: Date?, between start: Date, and end: Date) -> Bool {
        guard let date else { return false }
        return date >= start.addingTimeInterval(-0.001) && date <= end.addingTimeInterval(0.001)
    }

    /// Long enough that the next write's time differs from the last one's, stored.
    static func tick() { Thread.sleep(forTimeInterval: 0.02) }

    @Test("inserts write both times, updates only updatedAt, upserts each as it inserts or updates; instances and key lists don't matter",
          arguments: Backend.all)
    func writes(_ backend: Backend) throws { try writes(backend.open()) }

    func writes<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        defer { try? db.shutdown() }
        try db.create(Memo.self, policy: .dropTable)
        let table = db.table(Memo.self)
        let placeholder = Self.placeholder

        let start = Date()
        try table.insert(Memo(id: 1, text: "one", createdAt: placeholder, updatedAt: placeholder))
        try table.insert([Memo(id: 2, text: "two"), Memo(id: 3, text: "three")], ignoreKeys: \.createdAt, \.updatedAt)
        try table.insert(Memo(id: 4, text: "four", createdAt: placeholder), setKeys: \.id, \.text)
        let returned = try table.returning(insert: Memo(id: 5, text: "five", updatedAt: placeholder))
        let inserted = Date()
        let rows = Array(try table.order(by: \.id).select())
        #expect(rows.count == 5)
        for row in rows {
            #expect(Self.isStamped(row.createdAt, between: start, and: inserted), "\(row)")
            #expect(row.updatedAt == row.createdAt, "\(row)")
        }
        #expect(rows[1].createdAt == rows[2].createdAt, "one insert, one time")
        #expect(returned == rows[4])

        Self.tick()
        let updateStart = Date()
        try table.where(\Memo.id == 1).update(Memo(id: 1, text: "uno", createdAt: nil, updatedAt: placeholder))
        try table.where(\Memo.id == 2).update(Memo(id: 2, text: "dos", createdAt: placeholder), setKeys: \.text)
        try table.where(\Memo.id == 3).update(Memo(id: 3, text: "tres", createdAt: placeholder), setKeys: [\Memo.text, \Memo.createdAt])
        try table.where(\Memo.id == 4).update(Memo(id: 4, text: "cuatro", createdAt: placeholder), ignoreKeys: \.updatedAt)
        let updated = Date()
        let afterUpdates = Array(try table.order(by: \.id).select())
        #expect(afterUpdates.map(\.text) == ["uno", "dos", "tres", "cuatro", "five"])
        for (before, after) in zip(rows, afterUpdates).prefix(4) {
            #expect(after.createdAt == before.createdAt, "\(after)")
            #expect(Self.isStamped(after.updatedAt, between: updateStart, and: updated), "\(after)")
            #expect(after.updatedAt! > after.createdAt!, "\(after)")
        }
        #expect(afterUpdates[4] == rows[4], "a row no update matched keeps its times")

        Self.tick()
        let upsertStart = Date()
        try table.upsert([Memo(id: 5, text: "cinco", createdAt: placeholder, updatedAt: placeholder), Memo(id: 6, text: "six")], onConflict: \.id)
        try table.upsert(Memo(id: 1, text: "ignored"), onConflict: \.id, do: .ignore)
        try table.upsert(Memo(id: 2, text: "dos!", createdAt: placeholder), onConflict: \.id, do: .update(\.text))
        let upserted = Date()
        let afterUpserts = Array(try table.order(by: \.id).select())
        #expect(afterUpserts.map(\.text) == ["uno", "dos!", "tres", "cuatro", "cinco", "six"])
        #expect(afterUpserts[0] == afterUpdates[0], "an ignored conflict keeps the stored row, updatedAt too")
        for index in [1, 4] {
            #expect(afterUpserts[index].createdAt == afterUpdates[index].createdAt, "\(afterUpserts[index])")
            #expect(Self.isStamped(afterUpserts[index].updatedAt, between: upsertStart, and: upserted), "\(afterUpserts[index])")
        }
        #expect(Self.isStamped(afterUpserts[5].createdAt, between: upsertStart, and: upserted))
        #expect(afterUpserts[5].updatedAt == afterUpserts[5].createdAt)
    }

    @Test("a repository stamps creates and updates alike in memory and in every database", arguments: Store.all)
    func repository(_ store: Store) async throws {
        let repository = try await store.repository(of: Memo.self)
        let start = Date()
        try await repository.create(Memo(id: 1, text: "one", createdAt: Self.placeholder, updatedAt: nil))
        let created = try await repository.read(id: 1)
        #expect(Self.isStamped(created.createdAt, between: start, and: Date()))
        #expect(created.updatedAt == created.createdAt)

        try await Task.sleep(for: .milliseconds(20))
        let updateStart = Date()
        try await repository.update(Memo(id: 1, text: "uno", createdAt: nil, updatedAt: Self.placeholder))
        let updated = try await repository.read(id: 1)
        #expect(updated.text == "uno")
        #expect(updated.createdAt == created.createdAt)
        #expect(Self.isStamped(updated.updatedAt, between: updateStart, and: Date()))
    }
}

import CRUD
import CRUDSQLite
import Foundation
import Testing

/// Rolls back a transaction of the burst.
struct BurstRollBack: Error {}

/// An error an observer throws on purpose.
struct ObserverFailure: Error, Equatable {
    let id: Int
}

@Suite("observation", .timeLimit(.minutes(2)))
struct ObservationTests {
    /// Waits until every change committed so far has been delivered: observers run in commit order
    /// on one queue, so once a marker row written now is seen, everything before it was delivered.
    static func settle<C: DatabaseConfigurationProtocol>(_ db: Database<C>) async throws {
        let seen = Collector<Int>()
        let marker = db.observe(.insert, on: Marker.self) { seen.append($0) }
        defer { marker.cancel() }
        let id = Int.random(in: 1 ... Int(Int32.max))
        try await db.table(Marker.self).insert(Marker(id: id))
        #expect(await seen.wait { $0.contains(id) }, "the marker row was not delivered in time")
    }

    /// A database with the observed table and the marker table.
    static func database<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws -> Database<C> {
        let db = Database(configuration: configuration)
        try await db.create(Cycle.self)
        try await db.create(Marker.self)
        return db
    }

    @Test("Sqlable's observe(.insert/.update/.delete, on:, id:), observe(on:) and didUpdate get committed changes in order",
          arguments: Backend.all)
    func sqlableCallbacks(_ backend: Backend) async throws {
        try await sqlableCallbacks(backend.open())
    }

    func sqlableCallbacks<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = try await Self.database(configuration)
        let inserted = Collector<Int>(), updatedTwo = Collector<Int>(), deleted = Collector<Int>(), any = Collector<Int>()
        let everything = Collector<String>()
        db.observe(.insert, on: Cycle.self) { inserted.append($0) }
        db.observe(.update, on: Cycle.self, id: 2) { updatedTwo.append($0) }
        db.observe(.delete, on: Cycle.self) { deleted.append($0) }
        db.observe(on: Cycle.self) { any.append($0) }
        db.didUpdate = { table, id, change in
            if table == "Cycle" { everything.append("\(change) \(id)") }
        }
        let cycles = db.table(Cycle.self)
        try await cycles.insert([Cycle(id: 1, color: "red", gears: 3), Cycle(id: 2, color: "blue", gears: 7), Cycle(id: 3, color: "green", gears: 1)])
        try await cycles.where(\Cycle.id == 2).update(Cycle(id: 2, color: "teal", gears: 7))
        try await cycles.where(\Cycle.id == 3).update(Cycle(id: 3, color: "lime", gears: 1), setKeys: \.color)
        try await cycles.where(\Cycle.id == 1).delete()
        try await Self.settle(db)

        #expect(inserted.items == [1, 2, 3])
        #expect(updatedTwo.items == [2], "only row 2's update")
        #expect(deleted.items == [1])
        #expect(any.items == [1, 2, 3, 2, 3, 1])
        #expect(everything.items == ["insert 1", "insert 2", "insert 3", "update 2", "update 3", "delete 1"])
    }

    @Test("while someone observes, a table is dropped: create(.dropTable) and raw DROP TABLE remove it, rows and all (SQLite's delete authorizer had made the DROP do nothing)",
          arguments: Backend.all)
    func dropWhileObserved(_ backend: Backend) async throws {
        try await dropWhileObserved(backend.open())
    }

    func dropWhileObserved<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        let table = db.table(Chore.self)
        let chores = (1 ... 5).map { Chore(id: $0, owner: 1, title: "chore \($0)", done: false, priority: 1) }
        let observation = db.observe(on: Chore.self) { _ in }
        defer { observation.cancel() }
        try await db.create(Chore.self, policy: .dropTable)
        try await table.insert(chores)
        try await db.create(Chore.self, policy: .dropTable)
        #expect(try await table.count() == 0, "the table was dropped and made anew, empty")
        try await table.insert(chores)
        try await table.where(\Chore.id == 1).delete()
        #expect(try await table.count() == 4, "a DELETE still deletes")
        try await db.sql("DROP TABLE \(db.quote("Chore"))")
        await #expect(throws: CRUDSQLExeError.self, "the table is gone") { try await table.count() }
        try await db.shutdown()
    }

    @Test("10,000 writes in 100 transactions: exactly the committed changes, in order, none rolled back", arguments: Backend.all)
    func burst(_ backend: Backend) async throws {
        try await burst(backend.open())
    }

    func burst<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = try await Self.database(configuration)
        let streamed = Collector<CRUDChange>(), called = Collector<CRUDChange>()
        let stream = db.changes(of: Cycle.self)
        let reader = Task {
            for await change in stream { streamed.append(change) }
        }
        defer { reader.cancel() }
        db.didUpdate = { table, id, kind in
            if table == "Cycle" { called.append(CRUDChange(kind: kind, table: table, id: id)) }
        }
        // 10,000 synchronous writes: off Swift's cooperative pool, which the suites beside it need.
        let expected = try await offCooperativePool { try Self.writeBurst(db) }
        try await Self.settle(db)
        #expect(expected.count > 5_000, "most of the burst commits")
        // The stream's loop runs in a task of its own, behind the observation queue.
        _ = await streamed.wait { $0.count >= expected.count }
        for (name, delivered) in [("didUpdate", called.items), ("changes(of:)", streamed.items)] {
            #expect(delivered.count == expected.count, "\(name): \(delivered.count) changes, \(expected.count) committed")
            let mismatch = zip(delivered, expected).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(mismatch == nil, "\(name): change \(mismatch?.offset ?? 0) is \(String(describing: mismatch?.element.0)), not \(String(describing: mismatch?.element.1))")
        }
    }

    /// 100 transactions of 100 writes each: every seventh rolls back, and the others each have a
    /// savepoint that rolls back and a statement that fails inside a savepoint. Returns the changes
    /// that committed, in order.
    static func writeBurst<C: DatabaseConfigurationProtocol>(_ db: Database<C>) throws -> [CRUDChange] {
        let cycles = db.table(Cycle.self)
        var committed: [CRUDChange] = []
        for transaction in 0 ..< 100 {
            var changes: [CRUDChange] = []
            let base = transaction * 1_000
            do {
                try db.transaction {
                    for row in 0 ..< 60 {
                        try cycles.insert(Cycle(id: base + row, color: "c\(base + row)", gears: row))
                        changes.append(CRUDChange(kind: .insert, table: "Cycle", id: base + row))
                    }
                    for row in 0 ..< 20 {
                        try cycles.where(\Cycle.id == base + row).update(Cycle(id: base + row, color: "u\(base + row)", gears: 0), setKeys: \.color)
                        changes.append(CRUDChange(kind: .update, table: "Cycle", id: base + row))
                    }
                    for row in 20 ..< 30 {
                        try cycles.where(\Cycle.id == base + row).delete()
                        changes.append(CRUDChange(kind: .delete, table: "Cycle", id: base + row))
                    }
                    // A savepoint whose changes roll back: 8 writes, none reported.
                    try? db.transaction {
                        for row in 30 ..< 34 {
                            try cycles.where(\Cycle.id == base + row).delete()
                        }
                        for row in 60 ..< 64 {
                            try cycles.insert(Cycle(id: base + row, color: "gone\(base + row)", gears: row))
                        }
                        throw BurstRollBack()
                    }
                    // A statement that fails (a duplicate key) after inserting its first rows: 2 writes.
                    #expect(throws: CRUDSQLExeError.self) {
                        try db.transaction {
                            try cycles.insert([Cycle(id: base + 70, color: "x\(base)", gears: 1), Cycle(id: base + 40, color: "dup", gears: 1)])
                        }
                    }
                    for row in 40 ..< 50 {
                        try cycles.where(\Cycle.id == base + row).update(Cycle(id: base + row, color: "v\(base + row)", gears: 1))
                        changes.append(CRUDChange(kind: .update, table: "Cycle", id: base + row))
                    }
                    if transaction % 7 == 3 { throw BurstRollBack() }
                }
                committed += changes
            } catch is BurstRollBack {}
        }
        return committed
    }

    @Test("an observer that throws or is removed while changes are delivered loses no other observer's changes",
          arguments: Backend.all)
    func throwingAndRemoved(_ backend: Backend) async throws {
        try await throwingAndRemoved(backend.open())
    }

    func throwingAndRemoved<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = try await Self.database(configuration)
        let failures = Collector<Int>()
        db.didFail = { error in
            if let failure = error as? ObserverFailure { failures.append(failure.id) }
        }
        let first = Collector<Int>(), removed = Collector<Int>(), last = Collector<Int>()
        db.observe(on: Cycle.self) { throw ObserverFailure(id: $0) }
        let doomed = Collector<CRUDObservation>()
        let selfRemoving = Collector<CRUDObservation>()
        selfRemoving.append(db.observe(on: Cycle.self) { id in
            first.append(id)
            for observation in doomed.items + selfRemoving.items { observation.cancel() }
        })
        doomed.append(db.observe(on: Cycle.self) { removed.append($0) })
        db.observe(on: Cycle.self) { last.append($0) }

        try await db.table(Cycle.self).insert((1 ... 5).map { Cycle(id: $0, color: "c\($0)", gears: $0) })
        try await Self.settle(db)
        #expect(failures.items == [1, 2, 3, 4, 5], "each throw went to didFail")
        #expect(first.items == [1], "it removed itself during its first call")
        #expect(removed.items.isEmpty, "removed before its turn")
        #expect(last.items == [1, 2, 3, 4, 5])
    }

    @Test("a slow observer does not hold up writes", arguments: Backend.all)
    func slowObserver(_ backend: Backend) async throws {
        try await slowObserver(backend.open())
    }

    func slowObserver<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = try await Self.database(configuration)
        let cycles = db.table(Cycle.self)
        let delivered = Collector<Int>()
        // The observer holds its first change until the writes are done (10 s at most): had a commit
        // waited for its delivery, the writes would have stopped there.
        let released = DispatchSemaphore(value: 0)
        let held = Collector<Bool>()
        let slow = db.observe(.insert, on: Cycle.self) { id in
            if held.count == 0 {
                held.append(released.wait(timeout: .now() + 10) == .success)
            }
            delivered.append(id)
        }
        defer { slow.cancel() }
        let ids = Array(1_000 ..< 1_500)
        try await offCooperativePool {
            for id in ids { try cycles.insert(Cycle(id: id, color: "c\(id)", gears: id)) }
        }
        let deliveredDuringWrites = delivered.count
        released.signal()
        #expect(deliveredDuringWrites == 0, "\(deliveredDuringWrites) changes were delivered while the observer held the first")
        #expect(try await cycles.count() == ids.count, "every write committed while the observer held its first change")
        #expect(await delivered.wait { $0.count == ids.count }, "\(delivered.count) of \(ids.count) changes delivered once released")
        #expect(delivered.items == ids, "every change delivered once, in commit order")
        #expect(held.items == [true], "the observer was released, not timed out: the writes finished while it held a change")
    }

    @Test("changes(of:) and query observation: the first value at once, a fresh one after each commit, bursts coalesced",
          arguments: Backend.all)
    func queryObservation(_ backend: Backend) async throws {
        try await queryObservation(backend.open())
    }

    func queryObservation<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Cycle.self)
        try await db.create(Token.self)
        let cycles = db.table(Cycle.self)
        try await cycles.insert(Cycle(id: 1, color: "red", gears: 1))
        var reds = cycles.order(by: \.id).where(\Cycle.color == "red").observe().makeAsyncIterator()
        #expect(try await reds.next()?.map(\.id) == [1], "the first value at once")

        try await cycles.insert(Cycle(id: 2, color: "blue", gears: 2))
        try await cycles.insert(Cycle(id: 3, color: "red", gears: 3))
        var latest = try await reds.next()
        while latest?.map(\.id) != [1, 3] { latest = try await reds.next() }
        #expect(latest?.map(\.id) == [1, 3])

        // A burst of 200 commits: far fewer values, the last one with every row.
        for id in 100 ..< 300 { try await cycles.insert(Cycle(id: id, color: "red", gears: id)) }
        var values = 0
        repeat {
            latest = try await reds.next()
            values += 1
        } while latest?.count != 202
        #expect(values < 200, "\(values) values for 200 commits")

        // A table without an integer id: no row ids on PostgreSQL, but the query still sees changes.
        var tokens = db.observe(tracking: [Token.self]) { db in try await db.table(Token.self).count() }.makeAsyncIterator()
        #expect(try await tokens.next() == 0)
        try await db.table(Token.self).insert(Token(id: UUID(), label: "a"))
        #expect(try await tokens.next() == 1)
        try await db.table(Token.self).delete()
        #expect(try await tokens.next() == 0)
    }

    @Test("SQLite: raw SQL, a DELETE without WHERE and foreign-key cascades are reported too")
    func sqliteRawChanges() async throws {
        let db = try await Self.database(SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        try await db.create(Rider.self)
        try await db.create(Bike.self)
        // Prepared (and cached) while nobody observes, when SQLite may empty the table in one go.
        try await db.sql("DELETE FROM \(db.quote("Cycle"))")
        let changes = Collector<String>()
        db.didUpdate = { table, id, kind in
            if table != "Marker" { changes.append("\(kind) \(table) \(id)") }
        }
        try await db.sql("INSERT INTO \(db.quote("Cycle")) (\(db.quote("id")), \(db.quote("color")), \(db.quote("gears"))) VALUES (1, 'red', 1), (2, 'blue', 2)")
        try await db.sql("UPDATE \(db.quote("Cycle")) SET \(db.quote("gears")) = 5 WHERE \(db.quote("id")) = 2")
        try await db.sql("DELETE FROM \(db.quote("Cycle"))")
        try await db.table(Rider.self).insert(Rider(id: 7, name: "Ann"))
        try await db.table(Bike.self).insert(Bike(id: 9, ownerId: 7, keeperId: nil, name: "Roadie", color: "red", wheels: 2))
        try await db.table(Rider.self).where(\Rider.id == 7).delete()
        try await Self.settle(db)
        #expect(changes.items == [
            "insert Cycle 1", "insert Cycle 2", "update Cycle 2", "delete Cycle 1", "delete Cycle 2",
            "insert Rider 7", "insert Bike 9", "delete Rider 7", "delete Bike 9",
        ])
    }
}

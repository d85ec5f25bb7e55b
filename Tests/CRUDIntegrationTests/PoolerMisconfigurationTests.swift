import CRUD
import CRUDPostgres
import Foundation
import Testing

/// A note and a tag: two tables of the same shape, so that an insert run as another client's
/// statement of the same name goes to the wrong table without an error.
struct PoolerNote: CRUDModel {
    let id: Int
    var writer: Int
    var text: String
}

struct PoolerTag: CRUDModel {
    let id: Int
    var writer: Int
    var label: String
}

/// A row whose key the database makes, for `lastInsertId()`.
struct PoolerEntry: CRUDModel {
    let id: Int?
    var text: String
}

/// PostgreSQL behind pgbouncer in transaction mode, configured as if it were not
/// (`transactionPooling` left false): each call may reach another server session than the one
/// that prepared its statement. CRUD must never run a statement it did not prepare on that
/// session, and must say what is wrong.
@Suite("PostgreSQL behind a transaction pooler without transactionPooling",
       .enabled(if: !PostgresTestServer.isSkipped && PgBouncer.binary != nil, "needs PostgreSQL and pgbouncer"))
struct PoolerMisconfigurationTests {
    /// Before the fix every client named its statements `crud_1`, `crud_2`, … and a server session
    /// ran another client's statement under the name it was sent: in two runs of this test, 74 and
    /// 77 of 192 inserts acknowledged, of them about 20 stored in the other table, and 115 to 118
    /// failures, 42P05 ("prepared statement crud_1 already exists") as `.syntaxOrSchema`.
    @Test("16 tasks inserting into two tables: every acknowledged row stored once, no row nobody wrote, every failure the pooler error",
          .timeLimit(.minutes(2)))
    func concurrentWritesThroughAMisconfiguredPooler() async throws {
        try await Self.behindMisconfiguredPooler(roundRobin: true) { misconfigured, truth in
            try await truth.create(PoolerNote.self)
            try await truth.create(PoolerTag.self)
            let acknowledged = Collector<Int>()
            let failures = Collector<String>()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0 ..< 16 {
                    group.addTask {
                        for row in 0 ..< 12 {
                            let id = writer * 1_000 + row
                            do {
                                // Half the writers insert a note first, half a tag: the same name is
                                // a note's insert for one client and a tag's for another.
                                if (writer + row).isMultiple(of: 2) {
                                    try await misconfigured.table(PoolerNote.self).insert(PoolerNote(id: id, writer: writer, text: "note \(id)"))
                                } else {
                                    try await misconfigured.table(PoolerTag.self).insert(PoolerTag(id: id, writer: writer, label: "tag \(id)"))
                                }
                                acknowledged.append(id)
                            } catch let error as CRUDSQLExeError where Self.isPoolerError(error) {
                                continue
                            } catch {
                                failures.append("\(id): \(error)")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }

            #expect(failures.items.isEmpty, "every failure is the pooler error: \(failures.items.prefix(3))")
            let notes = try await truth.table(PoolerNote.self).select()
            let tags = try await truth.table(PoolerTag.self).select()
            let stored = Set(notes.map(\.id) + tags.map(\.id))
            let acknowledgedIDs = Set(acknowledged.items)
            #expect(notes.count + tags.count == stored.count, "no id stored twice")
            #expect(acknowledgedIDs.subtracting(stored).sorted() == [], "acknowledged but not stored")
            #expect(stored.subtracting(acknowledgedIDs).sorted() == [], "stored but never acknowledged")
            let wrongNotes = notes.filter { !($0.id % 1_000 + $0.writer).isMultiple(of: 2) || $0.text != "note \($0.id)" || $0.writer != $0.id / 1_000 }
            let wrongTags = tags.filter { ($0.id % 1_000 + $0.writer).isMultiple(of: 2) || $0.label != "tag \($0.id)" || $0.writer != $0.id / 1_000 }
            #expect(wrongNotes.map(\.id) == [], "notes as written, in their table")
            #expect(wrongTags.map(\.id) == [], "tags as written, in their table")
            // The workload did meet the misconfiguration: a client's calls reached other server sessions.
            #expect(acknowledgedIDs.count < 16 * 12, "some inserts were refused")
        }
    }

    /// Before the fix `lastval()` was asked on whichever server session the pooler picked next: the
    /// insert's own here, where a lone client gets the server connection it used last, but another
    /// client's (or none) wherever another client took that one in between. Now it is refused
    /// outside a transaction wherever a pooler answered the login.
    @Test("lastInsertId() outside a transaction refuses to guess, and inside one gives the inserted row's key",
          .timeLimit(.minutes(2)))
    func lastInsertIdThroughAMisconfiguredPooler() async throws {
        try await Self.behindMisconfiguredPooler(roundRobin: false) { misconfigured, truth in
            try await truth.create(PoolerEntry.self)
            var refused = 0, inTransaction = 0
            for attempt in 0 ..< 12 {
                do {
                    let insert = try await misconfigured.table(PoolerEntry.self).insert(PoolerEntry(id: nil, text: "outside \(attempt)"), ignoreKeys: \.id)
                    do {
                        let id = try insert.lastInsertId()
                        Issue.record("lastInsertId() answered \(String(describing: id)) from another server session")
                    } catch let error as CRUDSQLExeError where error.msg.contains("pooler") && error.msg.contains("returning") {
                        refused += 1
                    }
                } catch let error as CRUDSQLExeError where Self.isPoolerError(error) {}
                do {
                    let (text, id) = try await misconfigured.transaction { db in
                        let text = "inside \(attempt)"
                        return (text, try await db.table(PoolerEntry.self).insert(PoolerEntry(id: nil, text: text), ignoreKeys: \.id).lastInsertId())
                    }
                    let stored = try await truth.table(PoolerEntry.self).where(\PoolerEntry.text == text).select()
                    #expect(stored.map(\.id) == [id], "the key of the row the transaction inserted")
                    inTransaction += 1
                } catch let error as CRUDSQLExeError where Self.isPoolerError(error) {}
            }
            #expect(refused == 12 && inTransaction == 12, "\(refused) refused outside, \(inTransaction) answered inside")
        }
    }

    /// Whether `error` is the one that names the pooler and the option.
    static func isPoolerError(_ error: CRUDSQLExeError) -> Bool {
        error.kind == .misconfigured && error.msg.contains("transactionPooling") && error.msg.contains("pooler")
    }

    /// Runs `body` with a database reached through pgbouncer in transaction mode but configured
    /// without `transactionPooling`, and one that reaches the same database directly; removes them,
    /// the pooler and a cluster of its own (where the tests use a server they did not start).
    /// `roundRobin`: each transaction takes pgbouncer's server connection unused the longest, so a
    /// client's calls go round all four; else the one used last, so a lone client's stay on one.
    static func behindMisconfiguredPooler(roundRobin: Bool, _ body: (Database<PostgresDatabaseConfiguration>, Database<PostgresDatabaseConfiguration>) async throws -> Void)
        async throws {
        let server = try PostgresTestServer.shared.get()
        // Starting and stopping servers blocks: off Swift's cooperative pool, which the other tests share.
        let (ownCluster, pooler) = try await offCooperativePool { () throws -> (PostgresCluster?, PgBouncer) in
            let own = server.cluster == nil ? try PostgresCluster.start() : nil
            do {
                return (own, try PgBouncer.start(in: try #require(own ?? server.cluster), serverConnections: 4, roundRobin: roundRobin))
            } catch {
                own?.stop()
                throw error
            }
        }
        var failure: (any Error)?
        do {
            try await behind(pooler, in: try #require(ownCluster ?? server.cluster), body)
        } catch {
            failure = error
        }
        try await offCooperativePool {
            pooler.stop()
            ownCluster?.stop()
        }
        if let failure { throw failure }
    }

    /// `behindMisconfiguredPooler`'s databases, on `cluster` behind `pooler`.
    private static func behind(_ pooler: PgBouncer, in cluster: PostgresCluster,
                               _ body: (Database<PostgresDatabaseConfiguration>, Database<PostgresDatabaseConfiguration>) async throws -> Void)
        async throws {
        let name = "crud_pooler_" + UUID().uuidString.prefix(8).lowercased()
        let direct = try cluster.database()
        try await direct.sql("CREATE DATABASE \"\(name)\"")
        let truth = Database(configuration: try PostgresDatabaseConfiguration(
            database: name, host: "127.0.0.1", port: cluster.port, username: "postgres", password: PostgresCluster.password))
        let throughPooler = ["host": "127.0.0.1", "port": String(pooler.port), "user": "postgres", "password": PostgresCluster.password,
                             "dbname": name]

        // pgbouncer opens a server connection only when all it has are busy: four transactions
        // held open together make it open all four.
        let warm = Database(configuration: try PostgresDatabaseConfiguration(
            parameters: throughPooler, pool: PostgresPoolOptions(maximumConnections: 4), transactionPooling: true))
        let barrier = ThreadBarrier(parties: 4)
        let servers = Collector<Int>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0 ..< 4 {
                group.addTask {
                    try await onThread {
                        try warm.transaction {
                            servers.append(try warm.sql("SELECT pg_backend_pid()::bigint AS value", ConnectionNumber.self)[0].value)
                            #expect(barrier.arriveAndWait(timeout: .seconds(20)), "the four transactions were open together")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(Set(servers.items).count == 4, "four server sessions")
        try await warm.shutdown()

        let misconfigured = Database(configuration: try PostgresDatabaseConfiguration(
            parameters: throughPooler, pool: PostgresPoolOptions(maximumConnections: 16), transactionPooling: false))
        var failure: (any Error)?
        do {
            try await body(misconfigured, truth)
        } catch {
            failure = error
        }
        try await misconfigured.shutdown()
        try await truth.shutdown()
        try await direct.sql("DROP DATABASE \"\(name)\" WITH (FORCE)")
        try await direct.shutdown()
        if let failure { throw failure }
    }
}

/// Threads that wait for each other: `arriveAndWait` returns once `parties` threads called it.
/// `@unchecked Sendable`: `arrived` is guarded by `condition`.
final class ThreadBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) {
        self.parties = parties
    }

    /// Blocks until every party arrived, at most `timeout`.
    /// - Returns: whether every party arrived in time.
    func arriveAndWait(timeout: Duration) -> Bool {
        let deadline = Date.now.addingTimeInterval(Double(timeout.components.seconds))
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        while arrived < parties {
            if !condition.wait(until: deadline) { return arrived >= parties }
        }
        return true
    }
}

#if MySQL
import CRUD
import CRUDMySQL
import Foundation
import Logging
import Testing

/// MariaDB Galera: three nodes of one cluster on loopback (`MariaDBGaleraCluster`), each taking
/// writes. Each test starts its own cluster and removes it.
@Suite("MariaDB Galera cluster", .enabled(if: !MariaDBTestServer.isSkipped && !MariaDBGaleraCluster.isSkipped, "CRUD_SKIP_GALERA=1"),
       .serialized)
struct GaleraTests {
    @Test("writes through any node reach every node; several hosts connect to the first that answers, passing over one that is down",
          .timeLimit(.minutes(4)))
    func writesThroughAnyNode() async throws {
        let cluster = try await onThread { try MariaDBGaleraCluster.start() }
        defer { cluster.stop() }
        let name = "crud_galera"
        let databases = try (0 ..< 3).map { try cluster.database(name, through: $0) }
        try await databases[0].create(Course.self)
        for (node, db) in databases.enumerated() {
            try await db.table(Course.self).insert((1 ... 10).map { Course(id: node * 100 + $0, title: "through node \(node)") })
        }
        for node in 0 ..< 3 {
            #expect(try await onThread { try cluster.count("Course", in: name, on: node) } == 30, "node \(node) has every node's rows")
        }

        try await onThread { try cluster.kill(0) }
        let several = try cluster.database(name, through: 1, hosts: cluster.hosts)
        try await several.table(Course.self).insert(Course(id: 1_000, title: "past the node that is down"))
        #expect(try await onThread { try cluster.count("Course", in: name, on: 2) } == 31)
        let none = #expect(throws: CRUDSQLExeError.self) { try MySQLDatabaseConfiguration(database: name, hosts: []) }
        #expect(none?.msg.contains("no hosts") == true)
        for db in databases + [several] { try await db.shutdown() }
    }

    @Test("a node killed under 4 writers through one pool naming all three: every acknowledged row is on both survivors, the writers go on",
          .timeLimit(.minutes(4)))
    func nodeKilledUnderWriters() async throws {
        let cluster = try await onThread { try MariaDBGaleraCluster.start() }
        defer { cluster.stop() }
        let name = "crud_galera"
        let db = try cluster.database(name, through: 0, hosts: cluster.hosts, pool: .init(maximumConnections: 8, timeout: .seconds(30)))
        try await db.create(Course.self)

        let load = FailoverLoad(writers: 4) { writer, id in
            try await db.table(Course.self).insert(Course(id: id, title: "writer \(writer)"))
        }
        #expect(await load.acknowledged.wait(timeout: .seconds(30)) { $0.count >= 200 }, "the writers got going")
        try await onThread { try cluster.kill(0) }
        load.mark()
        let wroteOn = await load.recovered(writers: 4, writes: 50, timeout: .seconds(60))
        await load.stop()
        try await db.shutdown()

        #expect(wroteOn, "every writer wrote on after the node died")
        let written = Set(load.acknowledged.items)
        #expect(written.count == load.acknowledged.count, "each id acknowledged once")
        for survivor in [1, 2] {
            let stored = try await onThread { try cluster.count("Course", in: name, on: survivor) }
            #expect(stored >= written.count, "node \(survivor) has \(stored) rows of \(written.count) acknowledged")
            // Stored without acknowledgement: a write whose commit the cluster took as the node died.
            #expect(stored - written.count <= 4, "node \(survivor): \(stored - written.count) rows stored without acknowledgement")
        }
        let byId = try await onThread {
            // One connection, so that it reads after applying what the cluster committed.
            let survivor = try cluster.database(name, through: 1, pool: .init(maximumConnections: 1))
            defer { try? survivor.shutdown() }
            try survivor.sql("SET SESSION wsrep_sync_wait = 1")
            return Set(try survivor.table(Course.self).select().map(\.id))
        }
        #expect(written.subtracting(byId).isEmpty, "\(written.subtracting(byId).count) acknowledged rows lost")
        #expect(load.failureKinds.isSubset(of: ["connectionLost", "serializationFailure"]), "failures: \(load.failureKinds)")
        #expect((load.longest.items.max() ?? .zero) < .seconds(20), "the longest call took \(load.longest.items.max() ?? .zero)")
    }

    @Test("a certification conflict: the transaction that commits second on another node fails with .serializationFailure; lone statements in conflict are run again and all count",
          .timeLimit(.minutes(4)))
    func certificationConflict() async throws {
        let cluster = try await onThread { try MariaDBGaleraCluster.start() }
        defer { cluster.stop() }
        let name = "crud_galera"
        let first = try cluster.database(name, through: 0)
        let second = try cluster.database(name, through: 1)
        try await first.create(Course.self)
        try await first.table(Course.self).insert(Course(id: 1, title: "original"))
        #expect(try await onThread { try cluster.count("Course", in: name, on: 1) } == 1)

        let updated = Collector<Int>()
        let release = Collector<Int>()
        func updating(_ db: Database<MySQLDatabaseConfiguration>, _ node: Int) -> Task<Void, any Error> {
            Task {
                try await db.transaction { tx in
                    try await tx.table(Course.self).where(\Course.id == 1).update(Course(id: 1, title: "by node \(node)"), setKeys: \.title)
                    updated.append(node)
                    _ = await release.wait(timeout: .seconds(30)) { $0.contains(node) }
                }
            }
        }
        let onFirst = updating(first, 0)
        let onSecond = updating(second, 1)
        #expect(await updated.wait { $0.count == 2 }, "both nodes took the update locally")
        release.append(0)
        try await onFirst.value
        release.append(1)
        let conflict = await #expect(throws: CRUDSQLExeError.self) { try await onSecond.value }
        #expect(conflict?.kind == .serializationFailure, "\(String(describing: conflict))")
        #expect(try await second.table(Course.self).where(\Course.id == 1).first()?.title == "by node 0")

        // Statements outside a transaction that conflict across nodes are run again: every one counts.
        try await first.sql("CREATE TABLE Counter (id INT PRIMARY KEY, n INT NOT NULL)")
        try await first.sql("INSERT INTO Counter VALUES (1, 0)")
        _ = try await onThread { try cluster.count("Counter", in: name, on: 1) }
        // Each statement run again says so once, at warning (the task's logger gets the library's
        // lines while it serves the task, whatever the global destinations are meanwhile).
        let warnings = Collector<String>()
        let logger = Logger(label: "galera") { _ in CollectingLogHandler(collector: warnings) }
        try await CRUDLogging.withLogger(logger) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0 ..< 8 {
                    let db = task % 2 == 0 ? first : second
                    group.addTask {
                        for _ in 0 ..< 50 { try await db.sql("UPDATE Counter SET n = n + 1 WHERE id = 1") }
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(try await onThread { try cluster.value("SELECT n AS value FROM Counter", in: name, on: 2) } == 400)
        CRUDLogging.flush()
        let retried = warnings.items.filter { $0.hasPrefix("warning: ") && $0.contains("UPDATE Counter SET n = n + 1") }
        // Conflicts across the two nodes are certain at this rate: before, none was logged.
        #expect(!retried.isEmpty, "no statement said it was run again")
        #expect(retried.allSatisfy { $0.contains("certification conflict") && $0.contains("succeeded on run ") }, "\(retried)")
        try await first.shutdown()
        try await second.shutdown()
    }
}
#endif

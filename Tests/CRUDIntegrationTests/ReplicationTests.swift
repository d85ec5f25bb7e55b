import CRUD
import CRUDPostgres
import Foundation
import Testing

/// PostgreSQL beyond one server: a primary and two hot standbys (`PostgresReplicaSet`), reached
/// through a configuration that names all three. Each test starts its own servers and removes them.
@Suite("PostgreSQL primary and standbys", .enabled(if: !PostgresTestServer.isSkipped && !PostgresTestServer.throughPooler, "CRUD_SKIP_POSTGRES=1"),
       .serialized)
struct ReplicationTests {
    /// The port of the server `db` reaches.
    func serverPort<C: DatabaseConfigurationProtocol>(_ db: Database<C>) throws -> Int {
        try db.sql("SELECT inet_server_port()::bigint AS value", ConnectionNumber.self)[0].value
    }

    @Test("several hosts, as libpq's keywords, as a URL and in the structured form: writes reach the primary whatever the order; .standby reaches a standby, which refuses writes",
          .timeLimit(.minutes(2)))
    func severalHosts() async throws {
        try await offCooperativePool { try severalHostsBlocking() }
    }

    func severalHostsBlocking() throws {
        let set = try PostgresReplicaSet.start()
        defer { set.stop() }
        let password = PostgresCluster.password
        // The primary last: libpq passes over the standbys, which do not take writes.
        let reversed = Array(set.hosts.reversed())
        let structured = Database(configuration: try PostgresDatabaseConfiguration(database: "postgres", hosts: reversed, username: "postgres",
                                                                                    password: password))
        let keywords = Database(configuration: try PostgresDatabaseConfiguration(parameters: [
            "host": reversed.map(\.host).joined(separator: ","), "port": reversed.map { String($0.port!) }.joined(separator: ","),
            "dbname": "postgres", "user": "postgres", "password": password, "target_session_attrs": "read-write"]))
        let url = Database(configuration: try PostgresDatabaseConfiguration(
            url: "postgresql://postgres:\(password)@\(reversed.map { "\($0.host):\($0.port!)" }.joined(separator: ","))/postgres?target_session_attrs=read-write"))
        for db in [structured, keywords, url] {
            #expect(try serverPort(db) == set.primary.port)
        }
        try structured.create(Course.self)
        try structured.table(Course.self).insert(Course(id: 1, title: "on the primary"))

        let standby = Database(configuration: try PostgresDatabaseConfiguration(database: "postgres", hosts: set.hosts, target: .standby,
                                                                                 username: "postgres", password: password))
        #expect(try serverPort(standby) == set.standby1.port, "the first standby in the list")
        // Acknowledged means flushed on standby1; visible there once replayed, a moment later.
        var replayed = false
        for _ in 0 ..< 100 where !replayed {
            do {
                replayed = try standby.table(Course.self).where(\Course.id == 1).first()?.title == "on the primary"
            } catch let error as CRUDSQLExeError where error.kind == .syntaxOrSchema {
                // The table itself not replayed yet (42P01): a busy machine's standby is further behind.
            }
            if !replayed { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(replayed, "the primary's row reached the standby")
        let refused = #expect(throws: CRUDSQLExeError.self) { try standby.table(Course.self).insert(Course(id: 2, title: "on a standby")) }
        #expect(refused?.kind == .readOnly, "\(String(describing: refused))")

        let none = #expect(throws: CRUDSQLExeError.self) {
            try PostgresDatabaseConfiguration(database: "postgres", hosts: [], username: "postgres", password: password)
        }
        #expect(none?.msg.contains("no hosts") == true)
        for db in [structured, keywords, url, standby] { try db.shutdown() }
    }

    @Test("failover under load: 4 writers and 4 readers through one pool, the primary killed and standby1 promoted: every acknowledged write is on the new primary, the pool finds it, no call hangs",
          .timeLimit(.minutes(3)))
    func failoverUnderLoad() async throws {
        let set = try await onThread { try PostgresReplicaSet.start() }
        defer { set.stop() }
        let db = Database(configuration: try PostgresDatabaseConfiguration(
            database: "postgres", hosts: set.hosts, username: "postgres", password: PostgresCluster.password, connectTimeout: 2,
            pool: .init(maximumConnections: 8, timeout: .seconds(30))))
        try await db.create(Course.self)

        let load = FailoverLoad(writers: 4, readers: 4, write: { writer, id in
            try await db.table(Course.self).insert(Course(id: id, title: "writer \(writer)"))
        }, read: { try await db.table(Course.self).count() })
        #expect(await load.acknowledged.wait(timeout: .seconds(30)) { $0.count >= 200 }, "the writers got going")
        try await onThread { try set.primary.control("stop", mode: "immediate") }
        let killed = load.acknowledged.count
        try await Task.sleep(for: .milliseconds(500))
        try await onThread { try set.standby1.control("promote") }
        load.mark()
        let allBack = await load.recovered(writers: 4, writes: 1, timeout: .seconds(60))
        // Each writer goes on a while on the new primary.
        _ = await load.recovered.wait(timeout: .seconds(30)) { $0.count >= 200 }
        await load.stop()
        try await db.shutdown()

        #expect(allBack, "every writer wrote again after the promotion")
        let firstBack = load.recovered.items.map(\.at).min().map { $0 - load.marked.items[0] }
        #expect(firstBack.map { $0 < .seconds(5) } == true, "the pool reached the new primary \(String(describing: firstBack)) after the promotion")
        let newPrimary = try set.standby1.database()
        let stored = Set(try await newPrimary.table(Course.self).select().map(\.id))
        let written = Set(load.acknowledged.items)
        #expect(written.count == load.acknowledged.count, "each id acknowledged once")
        #expect(written.subtracting(stored).isEmpty, "\(written.subtracting(stored).count) of \(written.count) acknowledged writes lost")
        // Unacknowledged but stored: a write whose commit reached standby1 as the primary died.
        #expect(stored.subtracting(written).count <= 4, "stored without acknowledgement: \(stored.subtracting(written).sorted())")
        #expect(killed >= 200 && written.count > killed)
        #expect(load.failureKinds.isSubset(of: ["connectionLost"]), "failures: \(load.failureKinds)")
        #expect(!load.failures.items.isEmpty, "the primary's death was noticed")
        #expect(!load.reads.items.isEmpty)
        #expect((load.longest.items.max() ?? .zero) < .seconds(10), "the longest call took \(load.longest.items.max() ?? .zero)")
        try await newPrimary.shutdown()
    }

    @Test("reads routed to standbys: outside transactions a standby's, inside a transaction and in readingFromPrimary the primary's, which sees the task's own writes at once; the standby's within a bound",
          .timeLimit(.minutes(2)))
    func standbyReads() async throws {
        let set = try await onThread { try PostgresReplicaSet.start() }
        defer { set.stop() }
        let db = Database(configuration: try PostgresDatabaseConfiguration(
            database: "postgres", hosts: set.hosts, username: "postgres", password: PostgresCluster.password, pool: .init(maximumConnections: 4),
            readsFromStandbys: true))
        // A view of the server a read runs on, which a chain read reads as a model.
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS SELECT inet_server_port()::bigint AS value")
        try await db.create(Course.self)
        let standbys: Set = [set.standby1.port, set.standby2.port]
        let clock = ContinuousClock()
        let began = clock.now
        var routed: Int?
        while routed == nil, clock.now - began < .seconds(10) {
            // Until the standby has replayed the view, it does not know it.
            routed = try? await db.table(ConnectionNumber.self).first()?.value
        }
        #expect(routed.map(standbys.contains) == true, "an async read ran on port \(String(describing: routed))")
        let synchronous = try await onThread { try db.table(ConnectionNumber.self).first()?.value }
        #expect(synchronous.map(standbys.contains) == true, "a synchronous read ran on port \(String(describing: synchronous))")
        #expect(try await db.transaction { tx in try await tx.table(ConnectionNumber.self).first()?.value } == set.primary.port)
        #expect(try await db.readingFromPrimary { try await db.table(ConnectionNumber.self).first()?.value } == set.primary.port)
        #expect(try await onThread { try db.readingFromPrimary { try db.table(ConnectionNumber.self).first()?.value } } == set.primary.port)
        #expect(try await db.table(ConnectionNumber.self).first().map { standbys.contains($0.value) } == true, "outside the scope, reads go to standbys again")

        // The task's own writes: at once from the primary; from a standby once replayed.
        var lags: [Duration] = []
        for id in 1 ... 50 {
            try await db.table(Course.self).insert(Course(id: id, title: "course \(id)"))
            let written = clock.now
            #expect(try await db.readingFromPrimary { try await db.table(Course.self).where(\Course.id == id).first() } != nil)
            while try await db.table(Course.self).where(\Course.id == id).first() == nil, clock.now - written < .seconds(5) {}
            lags.append(clock.now - written)
        }
        #expect(lags.allSatisfy { $0 < .seconds(5) }, "the longest replay lag: \(lags.max() ?? .zero)")
        #expect(try await db.table(Course.self).count() == 50)
        try await db.shutdown()
    }

    @Test("reads from standbys spread over both, go to the primary while both are down, and come back within the documented bound",
          .timeLimit(.minutes(3)))
    func standbyReadsSpreadAndReturn() async throws {
        let set = try await onThread { try PostgresReplicaSet.start() }
        defer { set.stop() }
        let db = Database(configuration: try PostgresDatabaseConfiguration(
            database: "postgres", hosts: set.hosts, username: "postgres", password: PostgresCluster.password, pool: .init(maximumConnections: 4),
            readsFromStandbys: true))
        try await db.sql("CREATE VIEW \(db.quote("ConnectionNumber")) AS SELECT inet_server_port()::bigint AS value")
        let standbys: Set = [set.standby1.port, set.standby2.port]

        /// The port of the server each of `rounds` reads by 8 tasks at once ran on; 0 for a read
        /// that failed (a standby going away under it).
        func reads(_ rounds: Int) async -> [Int] {
            await withTaskGroup(of: [Int].self) { group in
                for _ in 0 ..< 8 {
                    group.addTask {
                        var ports: [Int] = []
                        for _ in 0 ..< rounds { ports.append((try? await db.table(ConnectionNumber.self).first()?.value) ?? 0) }
                        return ports
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
        }
        let clock = ContinuousClock()
        // Until both standbys have replayed the view, a read there fails.
        let began = clock.now
        while Set(await reads(5)).isSuperset(of: standbys) == false, clock.now - began < .seconds(20) {}
        // Before: every read ran on standby1, the first standby among the hosts.
        let spread = await reads(50)
        for port in standbys {
            #expect(spread.filter { $0 == port }.count >= 20, "reads on \(port) of \(spread.count): \(Dictionary(grouping: spread) { $0 }.mapValues(\.count))")
        }

        // Both standbys down: reads go to the primary.
        try await onThread {
            try set.standby1.control("stop")
            try set.standby2.control("stop")
        }
        _ = await reads(5)
        let outage = await reads(20)
        #expect(outage.filter { $0 == set.primary.port }.count >= outage.count / 2, "during the outage: \(Dictionary(grouping: outage) { $0 }.mapValues(\.count))")

        // Back: within the bound (2 s after they answer, PostgresConnection.standbyRecheck, and the
        // reads under way), reads are on the standbys again, both of them. Before: on the primary for
        // the 30 s observed.
        try await onThread {
            try set.standby1.control("start")
            try set.standby2.control("start")
        }
        let back = clock.now
        var returned: Duration?
        while returned == nil, clock.now - back < .seconds(15) {
            if await reads(2).contains(where: standbys.contains) { returned = clock.now - back }
        }
        #expect(returned.map { $0 < .seconds(4) } == true, "reads came back to a standby after \(String(describing: returned))")
        try await Task.sleep(for: .seconds(2.5))
        let after = await reads(50)
        for port in standbys {
            #expect(after.contains(port), "after the outage, no read on \(port): \(Dictionary(grouping: after) { $0 }.mapValues(\.count))")
        }
        #expect(after.filter(standbys.contains).count >= after.count * 9 / 10, "after the outage: \(Dictionary(grouping: after) { $0 }.mapValues(\.count))")
        try await db.shutdown()
    }
}

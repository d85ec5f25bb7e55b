import CRUD
import CRUDPostgres
import Foundation

/// A PostgreSQL primary and two hot standbys streaming from it on loopback, each a throwaway
/// cluster: `standby1` is synchronous (`synchronous_standby_names`), so a commit is acknowledged
/// only once it is on `standby1`'s disk, and `standby2` is not. Every cluster is stopped and removed
/// by `stop()`, or else when the test process ends.
struct PostgresReplicaSet {
    let primary: PostgresCluster
    let standby1: PostgresCluster
    let standby2: PostgresCluster

    /// What the servers run with: commits wait for their WAL (`synchronous_commit`), as failover
    /// without losing an acknowledged write needs; no flushes to disk, which only a crash of the
    /// machine (not of a server) would need.
    static let settings = ["fsync=off", "full_page_writes=off", "synchronous_commit=on", "max_connections=100",
                           "wal_level=replica", "max_wal_senders=10", "hot_standby=on"]

    /// Starts the primary, then copies it into the two standbys and starts them; returns once the
    /// primary sees `standby1` as its synchronous standby.
    static func start() throws -> PostgresReplicaSet {
        let primary = try PostgresCluster.start(settings: settings + ["synchronous_standby_names=standby1"])
        var started = [primary]
        do {
            let standby1 = try PostgresCluster.standby(of: primary, named: "standby1", settings: settings)
            started.append(standby1)
            let standby2 = try PostgresCluster.standby(of: primary, named: "standby2", settings: settings)
            started.append(standby2)
            let set = PostgresReplicaSet(primary: primary, standby1: standby1, standby2: standby2)
            try set.waitForSynchronousStandby()
            return set
        } catch {
            started.forEach { $0.stop() }
            throw error
        }
    }

    /// Stops every server and removes its folder.
    func stop() {
        [primary, standby1, standby2].forEach { $0.stop() }
    }

    /// The three servers in order, as a configuration's `hosts`.
    var hosts: [PostgresHost] {
        [primary, standby1, standby2].map { PostgresHost("127.0.0.1", port: $0.port) }
    }

    /// Waits up to 30 s until the primary reports `standby1` streaming as its synchronous standby.
    private func waitForSynchronousStandby() throws {
        let db = try primary.database()
        defer { try? db.shutdown() }
        for _ in 0 ..< 300 {
            let synchronous = try db.sql("SELECT count(*)::bigint AS value FROM pg_stat_replication "
                + "WHERE application_name = 'standby1' AND sync_state = 'sync' AND state = 'streaming'", ConnectionNumber.self)[0].value
            if synchronous == 1 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw PostgresUnavailable(description: "standby1 did not become the primary's synchronous standby within 30 s")
    }
}

#if MySQL
import CRUD
import CRUDMySQL
import Foundation

/// Three MariaDB nodes of one Galera cluster on loopback (`galera-4`'s provider, `gcomm://` on three
/// local ports, state transfers by rsync), each in a temporary folder, as the `mysql` user when the
/// tests run as root. Every node is stopped and its folder removed by `stop()`, or else when the
/// test process ends. `CRUD_SKIP_GALERA=1` leaves the Galera tests out; without it, a missing
/// package is a test failure that says what to install.
struct MariaDBGaleraCluster: Sendable {
    static let isSkipped = ProcessInfo.processInfo.environment["CRUD_SKIP_GALERA"] == "1"

    struct Node: Sendable {
        let directory: URL
        let pidFile: String
        /// The node's MySQL port, and its cluster (gcomm), incremental and full state transfer ports.
        let port: Int, clusterPort: Int, incrementalPort: Int, transferPort: Int
        let reaperKey: UUID

        var socket: String { directory.appending(path: "mysqld.sock").path }
        var host: MySQLHost { MySQLHost("127.0.0.1", port: port) }
    }

    let nodes: [Node]

    var hosts: [MySQLHost] { nodes.map(\.host) }

    /// Bootstraps the cluster on a first node, then joins two more, each copied from it; returns once
    /// all three are synced members of one cluster with the tests' user.
    static func start() throws -> MariaDBGaleraCluster {
        guard let provider = ["/usr/lib/galera/libgalera_smm.so", "/usr/lib/galera-4/libgalera_smm.so", "/usr/lib64/galera-4/libgalera_smm.so"]
            .first(where: FileManager.default.fileExists(atPath:)),
              let installer = find("mariadb-install-db", in: ["/usr/bin", "/usr/local/bin"]),
              let daemon = find("mariadbd", in: ["/usr/sbin", "/usr/bin", "/usr/local/bin"]),
              find("rsync", in: ["/usr/bin", "/usr/local/bin"]) != nil else {
            throw MySQLUnavailable(description: """
                the Galera tests need MariaDB with Galera and rsync: apt-get install mariadb-server galera-4 rsync, \
                or set CRUD_SKIP_GALERA=1 to leave them out
                """)
        }
        var nodes: [Node] = []
        do {
            for _ in 0 ..< 3 {
                let (directory, pidFile, key) = try TestResourceReaper.daemonFolder("crud-galera", pid: "mariadbd.pid")
                nodes.append(Node(directory: directory, pidFile: pidFile, port: try LoopbackPort.free(), clusterPort: try LoopbackPort.free(),
                                  incrementalPort: try LoopbackPort.free(), transferPort: try LoopbackPort.free(), reaperKey: key))
            }
            let asMySQL = getuid() == 0
            let first = nodes[0].directory.appending(path: "data").path
            // Each node's temporary tables in a folder of its own (see `MariaDBServer`).
            var install = [installer, "--no-defaults", "--datadir=\(first)", "--auth-root-authentication-method=normal", "--skip-test-db",
                           "--skip-name-resolve", "--tmpdir=\(nodes[0].directory.appending(path: "tmp").path)"]
            if asMySQL { install.append("--user=mysql") }
            for node in nodes {
                try FileManager.default.createDirectory(at: node.directory.appending(path: "data"), withIntermediateDirectories: true)
                try FileManager.default.createDirectory(at: node.directory.appending(path: "tmp"), withIntermediateDirectories: true)
                if asMySQL { try Spawn.run(["/bin/chown", "-R", "mysql:mysql", node.directory.path]) }
            }
            try Spawn.run(install)
            let members = "gcomm://" + nodes.map { "127.0.0.1:\($0.clusterPort)" }.joined(separator: ",")
            for (index, node) in nodes.enumerated() {
                var command = [daemon, "--no-defaults", "--datadir=\(node.directory.appending(path: "data").path)", "--socket=\(node.socket)",
                               "--port=\(node.port)", "--bind-address=127.0.0.1", "--pid-file=\(node.pidFile)", "--skip-name-resolve",
                               "--log-error=\(node.directory.appending(path: "error.log").path)", "--innodb-buffer-pool-size=64M",
                               "--tmpdir=\(node.directory.appending(path: "tmp").path)",
                               "--innodb-flush-log-at-trx-commit=0", "--max-connections=300", "--binlog-format=ROW",
                               "--default-storage-engine=InnoDB", "--innodb-autoinc-lock-mode=2", "--wsrep-on=ON",
                               "--wsrep-provider=\(provider)", "--wsrep-cluster-address=\(members)", "--wsrep-cluster-name=crud",
                               "--wsrep-node-address=127.0.0.1",
                               "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:\(node.clusterPort);"
                                   + "ist.recv_addr=127.0.0.1:\(node.incrementalPort);gcache.size=32M",
                               "--wsrep-sst-method=rsync", "--wsrep-sst-receive-address=127.0.0.1:\(node.transferPort)"]
                if asMySQL { command.append("--user=mysql") }
                if index == 0 { command.append("--wsrep-new-cluster") }
                try Spawn.startServer(command)
                try waitUntilSynced(node)
                if index == 0 {
                    // Replicated to the nodes that join, with the rest of the first node's state.
                    let root = try rootDatabase(node)
                    try root.sql("CREATE USER '\(MariaDBServer.user)'@'%' IDENTIFIED BY '\(MariaDBServer.password)'")
                    try root.sql("GRANT ALL ON *.* TO '\(MariaDBServer.user)'@'%'")
                    try root.shutdown()
                }
            }
            return MariaDBGaleraCluster(nodes: nodes)
        } catch {
            nodes.forEach { TestResourceReaper.shared.release($0.reaperKey) }
            throw error
        }
    }

    /// Stops every node and removes its folder.
    func stop() {
        nodes.forEach { TestResourceReaper.shared.release($0.reaperKey) }
    }

    /// Kills node `index` at once (SIGKILL), as a crash would.
    func kill(_ index: Int) throws {
        let pidFile = nodes[index].pidFile
        try Spawn.run(["/bin/sh", "-c", "kill -KILL $(cat \(shellQuoted(pidFile))) && rm -f \(shellQuoted(pidFile))"])
    }

    /// A database `name` made through node `index`, as the tests' user over TCP to `hosts` (that
    /// node alone by default).
    func database(_ name: String, through index: Int, hosts: [MySQLHost]? = nil, pool: MySQLPoolOptions = .init())
        throws -> Database<MySQLDatabaseConfiguration> {
        let root = try Self.rootDatabase(nodes[index])
        try root.sql("CREATE DATABASE IF NOT EXISTS \(name)")
        try root.shutdown()
        return Database(configuration: try MySQLDatabaseConfiguration(database: name, hosts: hosts ?? [nodes[index].host],
                                                                      username: MariaDBServer.user, password: MariaDBServer.password,
                                                                      connectTimeout: 2, pool: pool))
    }

    /// How many rows `table` of database `name` has on node `index`, once the node has applied what
    /// the cluster committed before the question.
    func count(_ table: String, in name: String, on index: Int) throws -> Int {
        try value("SELECT COUNT(*) AS value FROM \(table)", in: name, on: index)
    }

    /// The integer `sql` reads as `value` from database `name` on node `index`, once the node has
    /// applied what the cluster committed before the question (`wsrep_sync_wait`, on the one
    /// connection that asks).
    func value(_ sql: String, in name: String, on index: Int) throws -> Int {
        let root = try Self.rootDatabase(nodes[index], database: name)
        defer { try? root.shutdown() }
        try root.sql("SET SESSION wsrep_sync_wait = 1")
        return try root.sql(sql, ConnectionNumber.self)[0].value
    }

    private static func rootDatabase(_ node: Node, database: String = "mysql") throws -> Database<MySQLDatabaseConfiguration> {
        Database(configuration: try MySQLDatabaseConfiguration(database: database, socket: node.socket, username: "root", connectTimeout: 2,
                                                               pool: .init(maximumConnections: 1)))
    }

    /// Waits up to 120 s (a state transfer included) until the node takes connections and reports
    /// itself synced with the cluster.
    private static func waitUntilSynced(_ node: Node) throws {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if let root = try? rootDatabase(node) {
                defer { try? root.shutdown() }
                let synced = try? root.sql("SELECT (VARIABLE_VALUE = 'Synced') + 0 AS value FROM information_schema.GLOBAL_STATUS "
                    + "WHERE VARIABLE_NAME = 'WSREP_LOCAL_STATE_COMMENT'", ConnectionNumber.self).first?.value
                if synced == 1 { return }
            }
            let log = (try? String(contentsOf: node.directory.appending(path: "error.log"), encoding: .utf8)) ?? ""
            if log.contains("Aborting") { throw MySQLUnavailable(description: "a Galera node did not start; its log:\n" + log.suffix(3_000)) }
            usleep(200_000)
        }
        throw MySQLUnavailable(description: "a Galera node did not become synced within 120 s")
    }

    private static func find(_ name: String, in folders: [String]) -> String? {
        folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
#endif

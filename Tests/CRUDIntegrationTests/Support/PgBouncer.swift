import Foundation

/// pgbouncer in transaction pooling mode in front of a test cluster, on a free loopback port: each
/// transaction of a client may run on another of the cluster's connections. Run as the `postgres`
/// user when the tests run as root (pgbouncer refuses root); stopped and its folder removed by
/// `stop()`, or else when the test process ends (see `TestResourceReaper`).
struct PgBouncer: Sendable {
    let port: Int
    private let reaperKey: UUID

    /// Where pgbouncer is installed, if it is.
    static let binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"]
        .first(where: FileManager.default.isExecutableFile(atPath:))

    /// Starts pgbouncer with every database of `cluster` behind it, its server logins as `postgres`;
    /// and for each of `schemas`, a database of that name that is the cluster's `postgres` with
    /// that schema first in its `search_path`. `serverConnections`: how many server connections it
    /// keeps per database; `roundRobin`: each transaction takes the server connection unused the
    /// longest, rather than the last one used (pgbouncer's default).
    /// - Throws: `PostgresUnavailable` when pgbouncer is not installed or does not start.
    static func start(in front: PostgresCluster, schemas: [String] = [], serverConnections: Int = 16, roundRobin: Bool = false) throws
        -> PgBouncer {
        guard let binary else {
            throw PostgresUnavailable(description: """
                CRUD_TEST_POSTGRES_POOLER=1 runs the PostgreSQL tests through pgbouncer, which is not installed: \
                apt-get install pgbouncer, or leave CRUD_TEST_POSTGRES_POOLER unset
                """)
        }
        let (directory, pidFile, key) = try TestResourceReaper.daemonFolder("crud-pgbouncer", pid: "pgbouncer.pid")
        let asPostgres = getuid() == 0
        var lastFailure = ""
        // A port found free can be taken before pgbouncer binds it: then try another.
        for _ in 1 ... 5 {
            let port = try LoopbackPort.free()
            let configuration = directory.appending(path: "pgbouncer.ini")
            let server = "host=127.0.0.1 port=\(front.port) user=postgres password=\(PostgresCluster.password)"
            let aliases = schemas.map { "\($0) = \(server) dbname=postgres connect_query='SET search_path TO \($0)'\n" }.joined()
            try """
                [databases]
                * = \(server)
                \(aliases)

                [pgbouncer]
                listen_addr = 127.0.0.1
                listen_port = \(port)
                unix_socket_dir =
                auth_type = trust
                admin_users = postgres
                auth_file = \(directory.appending(path: "users.txt").path)
                pool_mode = transaction
                max_client_conn = 4000
                default_pool_size = \(serverConnections)
                server_round_robin = \(roundRobin ? 1 : 0)
                max_user_connections = 200
                server_idle_timeout = 5
                logfile = \(directory.appending(path: "pgbouncer.log").path)
                pidfile = \(pidFile)

                """.write(to: configuration, atomically: true, encoding: .utf8)
            try "\"postgres\" \"\(PostgresCluster.password)\"\n".write(to: directory.appending(path: "users.txt"), atomically: true, encoding: .utf8)
            if asPostgres { try Spawn.run(["/bin/chown", "-R", "postgres:postgres", directory.path]) }
            let command = [binary, "-d", configuration.path]
            do {
                try Spawn.run(asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command)
                if waitUntilListening(port) { return PgBouncer(port: port, reaperKey: key) }
            } catch let failure as SpawnFailure {
                lastFailure = failure.description
            }
            let log = (try? String(contentsOf: directory.appending(path: "pgbouncer.log"), encoding: .utf8)) ?? ""
            lastFailure += "\n" + log.suffix(2_000)
            _ = try? Spawn.run(["/bin/sh", "-c", "[ -f \(shellQuoted(pidFile)) ] && kill $(cat \(shellQuoted(pidFile))); sleep 0.2"])
        }
        TestResourceReaper.shared.release(key)
        throw PostgresUnavailable(description: "pgbouncer did not start: \(lastFailure)")
    }

    /// Stops pgbouncer and removes its folder.
    func stop() {
        TestResourceReaper.shared.release(reaperKey)
    }

    /// Whether something accepts connections on `port` within five seconds.
    private static func waitUntilListening(_ port: Int) -> Bool {
        for _ in 0 ..< 100 {
            if let socket = LoopbackPort.connect(port) {
                close(socket)
                return true
            }
            usleep(50_000)
        }
        return false
    }
}

import Foundation

/// PostgreSQL could not be found or started.
struct PostgresUnavailable: Error, CustomStringConvertible {
    var description: String
}

/// A throwaway cluster: initdb and pg_ctl, run as the `postgres` user when the tests run as root.
/// It is stopped and its folder removed by `stop()`, or else when the test process ends (see
/// `TestResourceReaper`).
struct PostgresCluster: Sendable {
    static let password = "crud-test-password"

    let binaries: URL
    let directory: URL
    let port: Int
    let asPostgres: Bool
    /// The server's settings (`-c` options) at every start.
    let settings: [String]
    private let reaperKey: UUID

    var data: URL { directory.appending(path: "data") }

    /// What a throwaway cluster needs no more than it needs speed: no flushes, no waiting for them.
    static let throwawaySettings = ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300"]

    /// Starts a new cluster with `settings`.
    static func start(settings: [String] = throwawaySettings) throws -> PostgresCluster {
        try start(settings: settings) { cluster in
            let passwordFile = cluster.directory.appending(path: "password")
            try password.write(to: passwordFile, atomically: true, encoding: .utf8)
            if cluster.asPostgres { try Spawn.run(["/bin/chown", "-R", "postgres:postgres", cluster.directory.path]) }
            try cluster.tool("initdb", ["-D", cluster.data.path, "-U", "postgres", "--pwfile=\(passwordFile.path)", "-E", "UTF8",
                                        "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"])
        }
    }

    /// Starts a hot standby of `primary`, copied from it with `pg_basebackup -R` and streaming its
    /// changes under the name `name` (what `synchronous_standby_names` names).
    static func standby(of primary: PostgresCluster, named name: String, settings: [String]) throws -> PostgresCluster {
        try start(settings: settings) { cluster in
            if cluster.asPostgres { try Spawn.run(["/bin/chown", "-R", "postgres:postgres", cluster.directory.path]) }
            let source = "host=127.0.0.1 port=\(primary.port) user=postgres password=\(password) application_name=\(name)"
            try cluster.tool("pg_basebackup", ["-D", cluster.data.path, "-R", "-X", "stream", "-c", "fast", "--no-sync", "-d", source])
            // -R records where to stream from; this adds the name the primary knows the standby by.
            let settingsFile = cluster.data.appending(path: "postgresql.auto.conf")
            let recorded = try String(contentsOf: settingsFile, encoding: .utf8)
            try (recorded + "\nprimary_conninfo = '\(source)'\n").write(to: settingsFile, atomically: false, encoding: .utf8)
        }
    }

    /// A cluster in a new folder on a free port: `prepare` fills its data folder, then it starts.
    private static func start(settings: [String], prepare: (PostgresCluster) throws -> Void) throws -> PostgresCluster {
        guard let binaries = findBinaries() else {
            throw PostgresUnavailable(description: """
                no PostgreSQL server found for the PostgreSQL tests: install it (Debian/Ubuntu: apt-get install postgresql), \
                or name a running server with libpq's PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE, \
                or set CRUD_SKIP_POSTGRES=1 to leave PostgreSQL out of the tests
                """)
        }
        let asPostgres = getuid() == 0
        let directory = FileManager.default.temporaryDirectory.appending(path: "crud-postgres-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let data = directory.appending(path: "data")
        let stop = command(binaries.appending(path: "pg_ctl"), ["-D", data.path, "-m", "fast", "-w", "stop"], asPostgres: asPostgres)
        let pidFile = shellQuoted(data.appending(path: "postmaster.pid").path)
        // A postmaster a test left stopped (`signalPostmaster(SIGSTOP)`) is woken first, to stop.
        let cleanUp = "[ -f \(pidFile) ] && { kill -CONT \"$(head -n 1 \(pidFile))\" 2>/dev/null; \(stop.map(shellQuoted).joined(separator: " ")) >/dev/null 2>&1; }; "
            + "rm -rf \(shellQuoted(directory.path))"
        var cluster = PostgresCluster(binaries: binaries, directory: directory, port: try LoopbackPort.free(), asPostgres: asPostgres,
                                      settings: settings, reaperKey: TestResourceReaper.shared.register(cleanUp: cleanUp))
        do {
            try prepare(cluster)
            // A port found free can be taken before the server binds it: then try another.
            for attempt in 1 ... 5 {
                do {
                    try cluster.control("start")
                    break
                } catch let error as PostgresUnavailable where attempt < 5 && error.description.contains("Address already in use") {
                    cluster = PostgresCluster(binaries: binaries, directory: directory, port: try LoopbackPort.free(), asPostgres: asPostgres,
                                              settings: settings, reaperKey: cluster.reaperKey)
                }
            }
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// Stops the server and removes its folder.
    func stop() {
        TestResourceReaper.shared.release(reaperKey)
    }

    /// Starts, stops, restarts or promotes the server, waiting until it has done so; `mode`: how it
    /// stops (`fast`, or `immediate`: as if the machine died). A failure quotes the server's log.
    func control(_ action: String, mode: String = "fast") throws {
        let log = directory.appending(path: "log")
        var arguments = ["-D", data.path, "-w", "-t", "60"]
        if action == "stop" || action == "restart" { arguments += ["-m", mode] }
        if action == "start" || action == "restart" {
            let options = settings.map { "-c \($0)" }.joined(separator: " ")
            arguments += ["-l", log.path, "-o", "-p \(port) -c listen_addresses=127.0.0.1 -k \(directory.path) \(options)"]
        }
        arguments.append(action)
        do {
            try tool("pg_ctl", arguments)
        } catch let failure as PostgresUnavailable {
            let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? "(no server log)"
            throw PostgresUnavailable(description: failure.description + "\nserver log:\n" + logged.suffix(2_000))
        }
    }

    /// Sends `signal` to the server's postmaster: `SIGSTOP` keeps it from taking new connections and
    /// cancel requests (the kernel still queues them) while the sessions' backends go on; `SIGCONT`
    /// wakes it.
    func signalPostmaster(_ signal: Int32) throws {
        let recorded = try String(contentsOf: data.appending(path: "postmaster.pid"), encoding: .utf8)
        guard let pid = recorded.split(separator: "\n").first.flatMap({ pid_t($0) }), kill(pid, signal) == 0 else {
            throw PostgresUnavailable(description: "cannot signal the postmaster of \(data.path): errno \(errno)")
        }
    }

    private func tool(_ name: String, _ arguments: [String]) throws {
        do {
            try Spawn.run(Self.command(binaries.appending(path: name), arguments, asPostgres: asPostgres))
        } catch let failure as SpawnFailure {
            throw PostgresUnavailable(description: failure.description)
        }
    }

    private static func command(_ executable: URL, _ arguments: [String], asPostgres: Bool) -> [String] {
        asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable.path] + arguments : [executable.path] + arguments
    }

    private static func findBinaries() -> URL? {
        var candidates: [URL] = []
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: root.path) {
            for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
                candidates.append(root.appending(path: "\(version)/bin"))
            }
        }
        candidates += ["/usr/local/bin", "/opt/homebrew/bin", "/usr/bin"].map { URL(fileURLWithPath: $0) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appending(path: "pg_ctl").path)
            && FileManager.default.isExecutableFile(atPath: $0.appending(path: "initdb").path) }
    }
}

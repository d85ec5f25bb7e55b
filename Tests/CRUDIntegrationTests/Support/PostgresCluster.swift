import Foundation

/// PostgreSQL could not be found or started.
struct PostgresUnavailable: Error, CustomStringConvertible {
    var description: String
}

/// A throwaway cluster: initdb and pg_ctl, run as the `postgres` user when the tests run as root.
struct PostgresCluster: Sendable {
    static let password = "crud-test-password"

    let binaries: URL
    let directory: URL
    let port: Int
    let asPostgres: Bool

    var data: URL { directory.appending(path: "data") }

    static func start() throws -> PostgresCluster {
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
        let passwordFile = directory.appending(path: "password")
        try password.write(to: passwordFile, atomically: true, encoding: .utf8)
        if asPostgres {
            try run(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres:postgres", directory.path], asPostgres: false)
        }
        let cluster = PostgresCluster(binaries: binaries, directory: directory, port: try freePort(), asPostgres: asPostgres)
        try cluster.tool("initdb", ["-D", cluster.data.path, "-U", "postgres", "--pwfile=\(passwordFile.path)", "-E", "UTF8",
                                    "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"])
        try cluster.control("start")
        ClusterRegistry.register(cluster)
        return cluster
    }

    /// Starts, stops or restarts the server, waiting until it has done so.
    func control(_ action: String) throws {
        var arguments = ["-D", data.path, "-l", directory.appending(path: "log").path, "-w", "-t", "60"]
        if action == "stop" || action == "restart" { arguments += ["-m", "fast"] }
        arguments += ["-o", "-p \(port) -c listen_addresses=127.0.0.1 -k \(directory.path) -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300", action]
        try tool("pg_ctl", arguments)
    }

    private func tool(_ name: String, _ arguments: [String]) throws {
        try Self.run(binaries.appending(path: name), arguments, asPostgres: asPostgres)
    }

    /// Runs a tool to completion with posix_spawn and waitpid. Foundation's `Process` is not used:
    /// it does not notice the exit of a `pg_ctl` whose server daemon lives on.
    private static func run(_ executable: URL, _ arguments: [String], asPostgres: Bool) throws {
        let command = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable.path] + arguments
                                 : [executable.path] + arguments
        let outputPath = FileManager.default.temporaryDirectory.appending(path: "crud-pg-tool-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var arguments = command.map { strdup($0) }
        arguments.append(nil)
        defer { arguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
        guard spawned == 0 else { throw PostgresUnavailable(description: "cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw PostgresUnavailable(description: "\(executable.lastPathComponent) \(command.dropFirst().joined(separator: " ")) failed:\n\(printed)")
        }
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

    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw PostgresUnavailable(description: "cannot open a socket to find a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw PostgresUnavailable(description: "cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Stops the throwaway cluster when the test process exits.
private enum ClusterRegistry {
    nonisolated(unsafe) static var cluster: PostgresCluster?

    static func register(_ cluster: PostgresCluster) {
        self.cluster = cluster
        atexit {
            guard let cluster = ClusterRegistry.cluster else { return }
            try? cluster.control("stop")
            try? FileManager.default.removeItem(at: cluster.directory)
        }
    }
}

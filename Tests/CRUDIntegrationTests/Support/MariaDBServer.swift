#if MySQL
import CRUD
import CRUDMySQL
import Foundation

/// MySQL or MariaDB could not be found or started.
struct MySQLUnavailable: Error, CustomStringConvertible {
    var description: String
}

/// A throwaway MariaDB: `mariadb-install-db` into a temporary folder, `mariadbd` on a free port of
/// 127.0.0.1 and a socket in that folder, as the `mysql` user when the tests run as root. It is
/// stopped and its folder removed by `stop()`, or else when the test process ends.
struct MariaDBServer: Sendable {
    /// The user `start()` creates, with all privileges, for connections over TCP.
    static let user = "crud"
    static let password = "crud-test-password"

    let directory: URL
    let port: Int
    private let reaperKey: UUID
    /// How the server was started: how `restart()` starts it again.
    private let command: [String]

    var socket: String { directory.appending(path: "mysqld.sock").path }

    static func start() throws -> MariaDBServer {
        guard let installer = find("mariadb-install-db", in: ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]),
              let daemon = find("mariadbd", in: ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]) else {
            throw MySQLUnavailable(description: """
                no MariaDB server found for the MySQL tests: install it (Debian/Ubuntu: apt-get install mariadb-server), \
                or name a running MySQL or MariaDB server with MYSQL_HOST/MYSQL_TCP_PORT/MYSQL_UNIX_PORT/MYSQL_USER/MYSQL_PWD, \
                or set CRUD_SKIP_MYSQL=1 to leave MySQL out of the tests
                """)
        }
        let asMySQL = getuid() == 0
        let (directory, pidFile, reaperKey) = try TestResourceReaper.daemonFolder("crud-mariadb", pid: "mariadbd.pid")
        do {
            let data = directory.appending(path: "data").path
            // A folder of its own for temporary tables: a starting server deletes every `#sql…` file
            // in its temporary folder, which in a shared /tmp are other servers' tables in use.
            let temporary = directory.appending(path: "tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            var install = [installer, "--no-defaults", "--datadir=\(data)", "--auth-root-authentication-method=normal",
                           "--skip-test-db", "--skip-name-resolve", "--tmpdir=\(temporary.path)"]
            if asMySQL {
                install.append("--user=mysql")
                try Spawn.run(["/bin/chown", "-R", "mysql:mysql", directory.path])
            }
            try run(install)
            var lastFailure = ""
            for _ in 1 ... 5 {
                let port = try LoopbackPort.free()
                var command = [daemon, "--no-defaults", "--datadir=\(data)", "--socket=\(directory.appending(path: "mysqld.sock").path)",
                               "--port=\(port)", "--bind-address=127.0.0.1", "--pid-file=\(pidFile)", "--skip-name-resolve", "--skip-log-bin",
                               "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--innodb-buffer-pool-size=128M",
                               "--max-connections=500", "--log-error=\(directory.appending(path: "error.log").path)", "--tmpdir=\(temporary.path)"]
                if asMySQL { command.append("--user=mysql") }
                let server = MariaDBServer(directory: directory, port: port, reaperKey: reaperKey, command: command)
                try Spawn.startServer(command)
                if try server.waitUntilReady() {
                    try server.createUser()
                    return server
                }
                lastFailure = (try? String(contentsOf: directory.appending(path: "error.log"), encoding: .utf8)) ?? "(no server log)"
                guard lastFailure.contains("Address already in use") else { break }
            }
            throw MySQLUnavailable(description: "MariaDB did not start; its log:\n" + lastFailure.suffix(2_000))
        } catch {
            TestResourceReaper.shared.release(reaperKey)
            throw error
        }
    }

    /// Stops the server and removes its folder.
    func stop() {
        TestResourceReaper.shared.release(reaperKey)
    }

    /// Stops the server as a shutdown does (every connection is dropped) and starts it again on the
    /// same port and socket.
    func restart() throws {
        try shutDown()
        try startAgain()
    }

    /// Stops the server as a shutdown does, keeping its folder for `startAgain()`.
    func shutDown() throws {
        let pidFile = directory.appending(path: "mariadbd.pid").path
        try Spawn.run(["/bin/sh", "-c", "kill $(cat \(shellQuoted(pidFile)))"])
        let deadline = Date().addingTimeInterval(60)
        while FileManager.default.fileExists(atPath: pidFile) {
            guard Date() < deadline else { throw MySQLUnavailable(description: "MariaDB did not stop within 60 seconds") }
            usleep(50_000)
        }
    }

    /// Starts the server that `shutDown()` stopped, on the same port and socket.
    func startAgain() throws {
        try Spawn.startServer(command)
        guard try waitUntilReady() else { throw MySQLUnavailable(description: "MariaDB did not start again") }
    }

    /// A database of a fresh schema on this server, as the tests' user over TCP.
    func database(pool: MySQLPoolOptions = .init()) throws -> Database<MySQLDatabaseConfiguration> {
        let name = "crud_restart"
        try Database(configuration: try MySQLDatabaseConfiguration(database: "mysql", socket: socket, username: "root"))
            .sql("CREATE DATABASE IF NOT EXISTS \(name)")
        return Database(configuration: try MySQLDatabaseConfiguration(database: name, host: "127.0.0.1", port: port,
                                                                      username: Self.user, password: Self.password,
                                                                      pool: pool))
    }

    /// Waits up to 60 seconds for the server's socket to take connections; `false` when the server
    /// exited first.
    private func waitUntilReady() throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? MySQLDatabaseConfiguration(database: "mysql", socket: socket, username: "root", connectTimeout: 2)) != nil { return true }
            let log = (try? String(contentsOf: directory.appending(path: "error.log"), encoding: .utf8)) ?? ""
            if log.contains("Aborting") { return false }
            usleep(100_000)
        }
        throw MySQLUnavailable(description: "MariaDB did not accept connections within 60 seconds on \(socket)")
    }

    /// The tests' user, with a password, over TCP: root connects only through the socket.
    private func createUser() throws {
        let root = Database(configuration: try MySQLDatabaseConfiguration(database: "mysql", socket: socket, username: "root"))
        try root.sql("CREATE USER '\(Self.user)'@'%' IDENTIFIED BY '\(Self.password)'")
        try root.sql("GRANT ALL ON *.* TO '\(Self.user)'@'%'")
    }

    private static func run(_ command: [String]) throws {
        do {
            try Spawn.run(command)
        } catch let failure as SpawnFailure {
            throw MySQLUnavailable(description: failure.description)
        }
    }

    private static func find(_ name: String, in folders: [String]) -> String? {
        folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
#endif

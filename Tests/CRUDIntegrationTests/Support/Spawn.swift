import Foundation

/// A child process could not be run, or failed.
struct SpawnFailure: Error, CustomStringConvertible {
    var description: String
}

/// Child processes run with posix_spawn. Foundation's `Process` is not used for servers: it does not
/// notice the exit of a `pg_ctl` whose server daemon lives on.
enum Spawn {
    /// Runs a command to completion; its standard output and error are returned, and thrown with the
    /// command when it fails.
    @discardableResult
    static func run(_ command: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appending(path: "crud-tool-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let status = waitForExit(try start(command, output: outputPath))
        let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw SpawnFailure(description: "\(command.joined(separator: " ")) failed:\n\(printed)")
        }
        return printed
    }

    /// Starts a server that runs until it is stopped another way (a signal to the process id in its
    /// pid file), and reaps it once it exits, on a thread of its own: an exited child nobody waits
    /// for stays a zombie, and Swift Testing's exit tests, which wait for any child of the process,
    /// then spin on it for ever.
    static func startServer(_ command: [String]) throws {
        let pid = try start(command)
        Thread.detachNewThread { _ = waitForExit(pid) }
    }

    /// Waits until child `pid` exits, and reaps it; its wait status.
    @discardableResult
    static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }

    /// Starts a command with standard input from /dev/null and output to `output`, and returns its
    /// process id without waiting.
    static func start(_ command: [String], output: String = "/dev/null") throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else is inherited: a long-lived child (a watchdog, a server) holding the write end
        // of another test's pipe would keep that test from ever reading to its end.
        closeInheritedDescriptors(&actions)
        // The test runner's threads block signals such as SIGTERM, and a child inherits its
        // spawner's mask: a server that does not reset it (pgbouncer) would never see a stop.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] {
            sigdelset(&mask, signal)
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var arguments = command.map { strdup($0) }
        arguments.append(nil)
        defer { arguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, arguments, environ)
        guard spawned == 0 else {
            throw SpawnFailure(description: "cannot run \(command[0]): \(String(cString: strerror(spawned)))")
        }
        return pid
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift does not import.
private let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// Makes the child close every descriptor above standard error.
private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    if let addCloseFrom {
        _ = addCloseFrom(&actions, 3)
        return
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
    }
}

/// `text` as one word of a POSIX shell command.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

import Foundation

/// Stops the servers and removes the folders the tests start, however the test process ends.
///
/// Each resource registers a clean-up script. It runs when the test that owns the resource releases
/// it, or at a normal exit of the process (an `atexit` handler), or, if the process crashes or is
/// killed, from a watchdog: a shell in a session of its own that polls for this process and runs the
/// script once it is gone.
final class TestResourceReaper: @unchecked Sendable {
    /// Guarded by `lock`.
    private var pending: [UUID: (script: String, watchdog: pid_t?)] = [:]
    private let lock = NSLock()

    static let shared: TestResourceReaper = {
        let reaper = TestResourceReaper()
        atexit { TestResourceReaper.shared.releaseAll() }
        return reaper
    }()

    /// Registers the shell script that removes a resource owned by process `owner` (this one unless
    /// a test says otherwise); returns the key that releases it.
    func register(cleanUp script: String, owner: pid_t = getpid()) -> UUID {
        let key = UUID()
        let watch = "trap '' HUP INT TERM; while kill -0 \(owner) 2>/dev/null; do sleep 1; done; \(script)"
        let shell = FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid")
            ? ["/usr/bin/setsid", "/bin/sh", "-c", watch] : ["/bin/sh", "-c", watch]
        let watchdog = try? Spawn.start(shell)
        lock.withLock { pending[key] = (script, watchdog) }
        return key
    }

    /// Runs a resource's clean-up now, and stops its watchdog.
    func release(_ key: UUID) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: key) }) else { return }
        Self.cleanUp(entry)
    }

    private func releaseAll() {
        let entries = lock.withLock {
            defer { pending.removeAll() }
            return Array(pending.values)
        }
        entries.forEach(Self.cleanUp)
    }

    private static func cleanUp(_ entry: (script: String, watchdog: pid_t?)) {
        if let watchdog = entry.watchdog {
            kill(watchdog, SIGKILL)
            Spawn.waitForExit(watchdog)
        }
        _ = try? Spawn.run(["/bin/sh", "-c", entry.script])
    }
}

extension TestResourceReaper {
    /// A folder for a server daemon that writes its process id to `pid` inside it, and the key that
    /// stops the daemon (SIGTERM, then up to ten seconds for it to remove that file) and removes the
    /// folder, also when the test process dies (`TestResourceReaper`).
    static func daemonFolder(_ prefix: String, pid name: String) throws -> (directory: URL, pidFile: String, reaperKey: UUID) {
        let directory = FileManager.default.temporaryDirectory.appending(path: "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pidFile = directory.appending(path: name).path
        let cleanUp = "[ -f \(shellQuoted(pidFile)) ] && kill $(cat \(shellQuoted(pidFile))) 2>/dev/null; "
            + "for i in $(seq 1 100); do [ -f \(shellQuoted(pidFile)) ] || break; sleep 0.1; done; rm -rf \(shellQuoted(directory.path))"
        return (directory, pidFile, shared.register(cleanUp: cleanUp))
    }
}

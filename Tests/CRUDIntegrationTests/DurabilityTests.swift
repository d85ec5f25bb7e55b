import CRUD
import CRUDPostgres
import CRUDSQLite
import Foundation
import Testing

/// Collects what several threads report.
private final class Acknowledged: @unchecked Sendable {
    /// Guarded by `lock`.
    private var ids: [Int] = []
    private var last = Date.distantPast
    private var failures: [String] = []
    private let lock = NSLock()

    func add(_ id: Int) { lock.withLock { ids.append(id); last = Date() } }
    func fail(_ message: String) { lock.withLock { failures.append(message) } }
    var all: (ids: [Int], last: Date, failures: [String]) { lock.withLock { (ids, last, failures) } }
}

/// A flag several threads read while one clears it.
final class RunningFlag: @unchecked Sendable {
    /// Guarded by `lock`.
    private var value = true
    private let lock = NSLock()

    var isSet: Bool { lock.withLock { value } }
    func clear() { lock.withLock { value = false } }
}

@Suite("durability")
struct DurabilityTests {
    @Test("kill -9 at random moments during committed transactions: every acknowledged one is stored, none in part", .timeLimit(.minutes(2)))
    func killedWriter() async throws {
        try await offCooperativePool {
            let path = Backend.temporaryFile("sqlite")
            let probe = try BuiltProgram("crud-test-probe")
            // The table exists before the first probe, which a slow start (ThreadSanitizer) may see killed
            // before it makes it.
            try Database(configuration: try SQLiteDatabaseConfiguration(path)).create(Ledger.self)
            var acknowledged = -1
            var generator = SystemRandomNumberGenerator()
            for _ in 1 ... 12 {
                let process = Process()
                process.executableURL = probe.url
                process.arguments = ["commit", path]
                let pipe = Pipe()
                process.standardOutput = pipe
                let exited = try process.runWatchingExit()
                // Killed at a random moment once it commits: timed from its start, a probe slow to start
                // (under ThreadSanitizer, beside busy suites) was killed before its first transaction
                // every time.
                var printed = Data()
                while printed.range(of: Data("committed".utf8)) == nil {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    printed.append(chunk)
                }
                usleep(UInt32.random(in: 100_000 ... 400_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                printed.append(pipe.fileHandleForReading.readDataToEndOfFile())
                let output = String(decoding: printed, as: UTF8.self)
                exited.wait()
                #expect(process.terminationReason == .uncaughtSignal, "the probe was killed, not ended: \(output)")
                for line in output.split(separator: "\n") {
                    if let number = Int(line.dropFirst("committed ".count)) { acknowledged = max(acknowledged, number) }
                }

                let db = Database(configuration: try SQLiteDatabaseConfiguration(path))
                var entries: [Int: Int] = [:]
                try db.table(Ledger.self).forEach { entries[$0.transaction, default: 0] += 1 }
                #expect(entries.values.allSatisfy { $0 == 10 }, "a transaction is stored whole or not at all")
                #expect(acknowledged < 0 || (0 ... acknowledged).allSatisfy { entries[$0] == 10 },
                        "every acknowledged transaction up to \(acknowledged) is stored")
                let check = try db.sql("SELECT integrity_check AS \"text\" FROM pragma_integrity_check()", TextValue.self)
                #expect(check.map(\.text) == ["ok"])
            }
            #expect(acknowledged > 0, "the probe committed transactions between kills")
        }
    }

    @Test("a PostgreSQL restart under 4 writers sharing one pooled Database: calls fail clearly or succeed, no acknowledged row is lost",
          .enabled(if: !PostgresTestServer.isSkipped, "CRUD_SKIP_POSTGRES=1"), .timeLimit(.minutes(3)))
    func restartUnderLoad() async throws {
        try await offCooperativePool {
            _ = try PostgresTestServer.shared.get()
            let cluster = try PostgresCluster.start()
            defer { cluster.stop() }
            let db = try cluster.database()
            try db.create(Course.self)

            let acknowledged = Acknowledged()
            let done = DispatchGroup()
            // The writers go on until 1.5 s after the restart has completed, however long it takes.
            let writing = RunningFlag()
            for writer in 0 ..< 4 {
                done.enter()
                Thread {
                    defer { done.leave() }
                    var id = writer * 1_000_000
                    while writing.isSet {
                        id += 1
                        do {
                            try db.transaction { try db.table(Course.self).insert(Course(id: id, title: "writer \(writer)")) }
                            acknowledged.add(id)
                        } catch let error as CRUDSQLExeError {
                            // A failed call says what failed; a refused connection during the restart is one too.
                            if !(error.msg.contains("PostgreSQL")) { acknowledged.fail(error.msg) }
                            if error.msg.hasPrefix("cannot connect") { usleep(50_000) }
                        } catch {
                            acknowledged.fail("\(error)")
                        }
                    }
                }.start()
            }
            usleep(1_000_000)
            try cluster.control("restart")
            let restarted = Date()
            usleep(1_500_000)
            writing.clear()
            done.wait()

            let (ids, last, failures) = acknowledged.all
            #expect(last > restarted, "writes succeeded again after the restart")
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            let stored = Set(try db.table(Course.self).select().map(\.id))
            #expect(ids.count > 20, "the writers made progress: \(ids.count) rows")
            #expect(Set(ids).isSubset(of: stored), "\(Set(ids).subtracting(stored).count) acknowledged rows are missing")
        }
    }
}

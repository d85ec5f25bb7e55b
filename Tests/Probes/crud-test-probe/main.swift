import CRUD
#if MySQL
import CRUDMySQL
#endif
import CRUDPostgres
import CRUDSQLite
import Foundation

// A program the integration tests run as a child process, for what only a whole process shows:
// what happens at exit, and what survives a kill -9.
//
//   crud-test-probe log file PATH return|exit   six events to a log file, then end main that way
//   crud-test-probe log console - return|exit   the same on standard output
//   crud-test-probe commit PATH                 committed transactions until killed, each reported
//   crud-test-probe read-then-write PATH [MS]   counts Ledger rows, then tries to write one; reports both
//                                               (MS: the busy timeout in milliseconds, else 5 s)
//   crud-test-probe hold PATH                   holds a read transaction on the database until its
//                                               standard input ends
//   crud-test-probe outage BACKEND PORT SILENT PASSWORD WRITERS ATTEMPTS [DATABASE]
//                                               writing to postgres (8 shared server connections) or
//                                               mysql (DATABASE, as the tests' user) at PORT, then
//                                               SILENT, a host that never answers; see outage(_:)
//   crud-test-probe migrate GO BACKEND KEY=VALUE…
//                                               once the file GO exists, migrates the database (sqlite
//                                               path=…; postgres libpq keywords; mysql database=, host=,
//                                               port=, socket=, user=, password=) with the migration tests'
//                                               history; reports each step it ran and the steps applied
//   crud-test-probe threads BACKEND KEY=VALUE…  the database (as migrate's) under a load of async calls, a
//                                               transaction, a cancelled call and a timed-out one, then shut
//                                               down; reports the process's threads before, during and after,
//                                               and exits 1 if they do not come back to where they were;
//                                               with load=reads, the 64 tasks only read (count, first,
//                                               select, a prepared lookup) rows written before; with
//                                               load=transactions, each runs its writes and reads in
//                                               transactions, two child tasks at a time; with
//                                               load=upserts, each upserts rows, inserting then updating;
//                                               with load=cancels, 2,000 tasks streaming, selecting, writing
//                                               in transactions and inserting, each cancelled within 300 ms;
//                                               with mutexes=spinning, first SQLiteProcess.useSpinningMutexes()

/// What the 64 tasks of `threads` do: insert and count (`writes`), read rows written before
/// (`reads`), insert and read in transactions whose bodies run child tasks (`transactions`), or
/// upsert rows, inserting then updating them (`upserts`); or, in place of the 64, a storm of 2,000
/// tasks cancelled at random while they run or wait (`cancels`).
enum Load: String {
    case writes, reads, transactions, upserts, cancels
}

/// 2,000 tasks streaming, selecting, writing in transactions and inserting, each cancelled at a
/// random moment within 300 ms, while it waits for a connection or its statement runs.
func cancellationStorm<C: DatabaseConfigurationProtocol>(_ db: Database<C>) async {
    await withTaskGroup(of: Void.self) { group in
        for index in 0 ..< 2_000 {
            let work = Task {
                switch index % 4 {
                case 0: for try await _ in db.table(Ledger.self).select() { await Task.yield() }
                case 1: _ = try await db.table(Ledger.self).select()
                case 2:
                    try await db.transaction { tx in
                        try await tx.table(Ledger.self).insert(Ledger(id: 10_000 + 2 * index, transaction: index, entry: 0))
                        try await tx.table(Ledger.self).insert(Ledger(id: 10_001 + 2 * index, transaction: index, entry: 1))
                    }
                default: try await db.table(Ledger.self).insert(Ledger(id: 10_000 + 2 * index, transaction: index, entry: 0))
                }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 0 ... 300)))
                work.cancel()
                _ = await work.result
            }
        }
    }
}

struct Ledger: CRUDModel {
    let id: Int
    let transaction: Int
    let entry: Int
}

// The migration tests' models and history (MigrationTests.history), to migrate from another process.
struct Cycle: CRUDModel {
    let id: Int
    var color: String
    var gears: Int

    static let crudConstraints: [CRUDConstraint<Cycle>] = [.unique(\.color, \.gears)]
}

struct Reading: CRUDModel {
    let id: Int
    var value: Double?
    var label: String
}

func history<C: DatabaseConfigurationProtocol>(_: C.Type) -> CRUDMigrator<C> {
    var migrator = CRUDMigrator<C>()
    migrator.register("v1: cycles") { db in
        print("ran v1")
        try db.create(Cycle.self)
        // Holds the migration lock a while, so that the other migrators surely wait for it.
        Thread.sleep(forTimeInterval: 0.3)
    }
    migrator.register("v2: color index, first cycles") { db in
        print("ran v2")
        try db.table(Cycle.self).index(\.color)
        try db.table(Cycle.self).insert([Cycle(id: 1, color: "red", gears: 3), Cycle(id: 2, color: "blue", gears: 21)])
    }
    migrator.register("v3: readings, one gear more") { db in
        print("ran v3")
        try db.create(Reading.self)
        try db.sql("UPDATE \(db.quote(Cycle.self)) SET \(db.quote("gears")) = \(db.quote("gears")) + 1")
    }
    return migrator
}

func migrate<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
    let applied = try history(C.self).migrate(Database(configuration: configuration))
    print("applied: \(applied.joined(separator: "; "))")
}

/// The configuration that a backend's name and `KEY=VALUE` options name (`migrate`'s and `threads`'),
/// passed to `body`.
func withConfiguration(_ backend: String, _ options: [String: String], _ body: (any DatabaseConfigurationProtocol) async throws -> Void) async throws {
    switch backend {
    case "sqlite":
        try await body(try SQLiteDatabaseConfiguration(options["path"]!, busyTimeout: .seconds(30)))
    case "postgres":
        var parameters = options
        let pooled = parameters.removeValue(forKey: "crud_transaction_pooling") == "1"
        try await body(try PostgresDatabaseConfiguration(parameters: parameters, transactionPooling: pooled))
    #if MySQL
    case "mysql" where options["socket"] != nil:
        try await body(try MySQLDatabaseConfiguration(database: options["database"]!, socket: options["socket"]!, username: options["user"],
                                                      password: options["password"]))
    case "mysql":
        try await body(try MySQLDatabaseConfiguration(database: options["database"]!, host: options["host"]!,
                                                      port: options["port"].flatMap { Int($0) }, username: options["user"],
                                                      password: options["password"]))
    #endif
    default:
        FileHandle.standardError.write(Data("crud-test-probe: no backend \(backend) in this build\n".utf8))
        exit(2)
    }
}

/// The `KEY=VALUE` arguments after the first `skip`.
func options(after skip: Int) -> [String: String] {
    var options: [String: String] = [:]
    for pair in CommandLine.arguments.dropFirst(skip + 1) {
        guard let equals = pair.firstIndex(of: "=") else { continue }
        options[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
    }
    return options
}

/// One thread of this process: its id, name and what the kernel says it waits in.
struct ThreadState: CustomStringConvertible {
    let id: String
    let name: String
    let waitsIn: String

    var description: String { "\(name) (\(id), waiting in \(waitsIn))" }

    /// An idle worker of Dispatch's pool, which Dispatch keeps for later work: named after its
    /// root queue, parked on a futex. A thread blocked in a database call would wait in a poll or a
    /// read; one of CRUD's own would be named `CRUD…`.
    var isIdleDispatchWorker: Bool { name.contains("qos") && waitsIn.hasPrefix("futex") }

    /// The threads of this process, but the one asking.
    static func all() -> [ThreadState] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let asking = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last.map(String.init)
        return tasks.filter { $0 != asking }.map { task in
            func read(_ file: String) -> String {
                ((try? String(contentsOfFile: "/proc/self/task/\(task)/\(file)", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return ThreadState(id: task, name: read("comm"), waitsIn: read("wchan"))
        }
    }
}

/// The most threads the process had while it ran, sampled every 2 ms on a thread of its own (not
/// counted). `@unchecked Sendable`: `peak` and `stopped` are guarded by `lock`.
final class ThreadSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    /// The threads' names at the peak, with how many had each.
    private var atPeak: [String: Int] = [:]
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init() {
        Thread {
            while !self.lock.withLock({ self.stopped }) {
                let threads = ThreadState.all()
                self.lock.withLock {
                    guard threads.count > self.peak else { return }
                    self.peak = threads.count
                    self.atPeak = Dictionary(threads.map { ($0.name, 1) }, uniquingKeysWith: +)
                }
                usleep(2_000)
            }
            self.done.signal()
        }.start()
    }

    /// Stops sampling and returns the most threads seen.
    func stop() -> Int {
        lock.withLock { stopped = true }
        done.wait()
        return lock.withLock { peak }
    }

    /// The names of the threads at the peak, "name×count", most first.
    var namesAtPeak: String {
        lock.withLock { atPeak.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key)×\($0.value)" }.joined(separator: ", ") }
    }
}

/// How many tasks got somewhere. `@unchecked Sendable`: `arrived` is guarded by `lock`.
final class Arrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var arrived = 0

    func arrive() { lock.withLock { arrived += 1 } }
    var count: Int { lock.withLock { arrived } }
}

/// 8 tasks writing through `configuration`'s pool of 8 (whose servers are PostgreSQL's or MySQL's
/// and then a host that never answers); after "ready", once a line comes in (the server stopped):
/// one write, which finds its connection lost and has the others probed before their next use, then
/// `writers` tasks writing `attempts` times each. Reports the threads before and at most during
/// those, how each write ended, and how long they took.
func outage<C: DatabaseConfigurationProtocol>(_ configuration: C, writers: Int, attempts: Int) async throws {
    let db = Database(configuration: configuration)
    try await db.create(Ledger.self, policy: .dropTable)
    // The pool's 8 sessions all open: 8 transactions, each kept until all 8 have inserted.
    let inside = Arrivals()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0 ..< 8 {
            group.addTask {
                try await db.transaction { tx in
                    try await tx.table(Ledger.self).insert(Ledger(id: task, transaction: 0, entry: task))
                    inside.arrive()
                    while inside.count < 8 { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
        }
        try await group.waitForAll()
    }
    await withTaskGroup(of: Void.self) { group in
        for _ in 0 ..< 8 { group.addTask { _ = (0 ..< 1_000).reduce(0, +) } }
    }
    let before = ThreadState.all().count + 1
    print("ready")
    fflush(nil)
    _ = readLine()
    let sampler = ThreadSampler()
    let started = ContinuousClock.now
    func write(_ id: Int) async -> String {
        let started = ContinuousClock.now
        do {
            try await db.table(Ledger.self).insert(Ledger(id: id, transaction: id / 100, entry: id % 100))
            return "written"
        } catch let error as CRUDSQLExeError where error.kind == .connectionLost {
            return ContinuousClock.now - started > .seconds(1) ? "timed-out" : "lost"
        } catch {
            return "\(error)"
        }
    }
    var outcomes = [await write(99)]
    await withTaskGroup(of: [String].self) { group in
        for task in 0 ..< writers {
            group.addTask {
                var ended: [String] = []
                for attempt in 1 ... attempts { ended.append(await write(attempt * 100 + task)) }
                return ended
            }
        }
        for await ended in group { outcomes += ended }
    }
    let peak = sampler.stop()
    print("threads: \(before) before, \(peak) at most during the outage")
    print("outcomes: \(outcomes.sorted().joined(separator: " "))")
    print("took: \(ContinuousClock.now - started)")
}

/// What a server does with a database through its life, with every path that could leave a thread
/// behind: many tasks at once, a transaction, a statement cancelled and one timed out, shutdown.
/// Returns the most threads the process had while the 64 tasks ran (and their names then), and how
/// many it had at the end.
func exercise<C: DatabaseConfigurationProtocol>(_ configuration: C, long: String, load: Load) async throws -> (peak: Int, during: Int, names: String) {
    let db = Database(configuration: configuration)
    try await db.create(Ledger.self, policy: .dropTable)
    let byID = try db.table(Ledger.self).prepared(matching: \.id)
    if load == .reads {
        try await db.table(Ledger.self).insert((0 ..< 64).flatMap { task in (0 ..< 10).map { Ledger(id: task * 100 + $0, transaction: task, entry: $0) } })
    }
    let sampler = ThreadSampler()
    if load == .cancels {
        try await db.table(Ledger.self).insert((0 ..< 500).map { Ledger(id: $0, transaction: -1, entry: $0) })
        await cancellationStorm(db)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0 ..< (load == .cancels ? 0 : 64) {
            group.addTask {
                for entry in 0 ..< 10 {
                    let ledger = db.table(Ledger.self).where(\Ledger.transaction == task)
                    switch load {
                    case .writes:
                        try await db.table(Ledger.self).insert(Ledger(id: task * 100 + entry, transaction: task, entry: entry))
                        _ = try await ledger.count()
                    case .reads:
                        let count = try await ledger.count(), first = try await ledger.first()?.transaction
                        let selected = try await ledger.select().count, looked = try await byID.first(task * 100 + entry)?.entry
                        guard count == 10, first == task, selected == 10, looked == entry else {
                            throw CRUDSQLGenError("task \(task) read \(count), \(first as Any), \(selected), \(looked as Any)")
                        }
                    case .upserts:
                        // Inserted, then updated: one row's statement, then two rows' in a transaction.
                        let row = Ledger(id: task * 100 + entry, transaction: task, entry: entry)
                        try await db.table(Ledger.self).upsert(row, onConflict: \.id)
                        let moved = Ledger(id: row.id, transaction: task, entry: entry + 1)
                        guard try await db.table(Ledger.self).upsert([moved, row], onConflict: \.id) == 2,
                              try await byID.first(row.id)?.entry == entry else {
                            throw CRUDSQLGenError("task \(task)'s upserts of row \(row.id) did not end with entry \(entry)")
                        }
                    case .cancels:
                        break
                    case .transactions:
                        let (count, looked) = try await db.transaction { tx in
                            try await tx.table(Ledger.self).insert(Ledger(id: task * 100 + entry, transaction: task, entry: entry))
                            async let count = tx.table(Ledger.self).where(\Ledger.transaction == task).count()
                            async let looked = byID.first(task * 100 + entry)?.entry
                            return try await (count, looked)
                        }
                        guard count == entry + 1, looked == entry else {
                            throw CRUDSQLGenError("task \(task)'s transaction read \(count), \(looked as Any)")
                        }
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let peak = sampler.stop(), names = sampler.namesAtPeak
    try await db.transaction { tx in try await tx.table(Ledger.self).insert(Ledger(id: -1, transaction: -1, entry: -1)) }
    let cancelled = Task { try await db.sql(long) }
    try await Task.sleep(for: .milliseconds(200))
    cancelled.cancel()
    _ = await cancelled.result
    _ = try? await db.withStatementTimeout(.milliseconds(200)) { try await db.sql(long) }
    let during = ThreadState.all().count + 1
    try await db.shutdown()
    return (peak, during, names)
}

let arguments = CommandLine.arguments.dropFirst()
switch (arguments.first, arguments.count) {
case ("log", 4):
    let path = arguments[arguments.startIndex + 2]
    CRUDLogging.errorLogDestinations = arguments[arguments.startIndex + 1] == "file" ? [.file(path)] : [.console]
    for line in 1 ... 6 {
        CRUDLogging.log(.info, "probe event \(line)")
    }
    if arguments.last == "exit" { exit(0) }
case ("commit", 2):
    try commitForever()
case ("read-then-write", 2...3):
    try readThenWrite()
case ("hold", 2):
    try holdTransaction()
case ("outage", 7...8):
    CRUDLogging.queryLogDestinations = []
    CRUDLogging.errorLogDestinations = []
    let given = Array(arguments.dropFirst())
    let hosts = given[1 ... 2].map { ("127.0.0.1", Int($0)!) }
    let (writers, attempts) = (Int(given[4])!, Int(given[5])!)
    switch given[0] {
    case "postgres":
        try await outage(try PostgresDatabaseConfiguration(
            database: "postgres", hosts: hosts.map { PostgresHost($0.0, port: $0.1) }, username: "postgres", password: given[3],
            connectTimeout: 2, pool: .init(maximumConnections: 8), serverConnections: 8), writers: writers, attempts: attempts)
    #if MySQL
    case "mysql":
        try await outage(try MySQLDatabaseConfiguration(database: given[6], hosts: hosts.map { MySQLHost($0.0, port: $0.1) },
                                                        username: "crud", password: given[3], connectTimeout: 2,
                                                        pool: .init(maximumConnections: 8)), writers: writers, attempts: attempts)
    #endif
    default:
        FileHandle.standardError.write(Data("outage: no backend \(given[0]) in this build\n".utf8))
        exit(2)
    }
case ("migrate", 3...):
    CRUDLogging.queryLogDestinations = []
    let go = arguments[arguments.startIndex + 1]
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: go), Date() < deadline { usleep(5_000) }
    try await withConfiguration(arguments[arguments.startIndex + 2], options(after: 3)) { try migrate($0) }
case ("threads", 2...):
    CRUDLogging.queryLogDestinations = []
    CRUDLogging.errorLogDestinations = []
    // Swift's cooperative pool and Dispatch's threads started first, so that only what the database
    // adds is counted.
    await withTaskGroup(of: Void.self) { group in
        for _ in 0 ..< 8 { group.addTask { _ = (0 ..< 1_000).reduce(0, +) } }
    }
    let before = Set(ThreadState.all().map(\.id))
    var (peak, during, names) = (0, 0, "")
    let backend = arguments[arguments.startIndex + 1]
    // A statement that runs for seconds, to cancel and to time out.
    let long = backend == "mysql" ? "SELECT COUNT(*) FROM seq_1_to_300000000 WHERE seq % 7 = 1"
        : "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM (SELECT x FROM c LIMIT 60000000) AS n"
    var given = options(after: 2)
    if given.removeValue(forKey: "mutexes") == "spinning" {
        print("SQLite's mutexes spin: \(try SQLiteProcess.useSpinningMutexes())")
    }
    let named = given.removeValue(forKey: "load") ?? "writes"
    guard let load = Load(rawValue: named) else {
        FileHandle.standardError.write(Data("threads: no load \(named): writes, reads, transactions, upserts or cancels\n".utf8))
        exit(2)
    }
    try await withConfiguration(backend, given) { (peak, during, names) = try await exercise($0, long: long, load: load) }
    // What was under way settles: a queue's last job, a timer cancelled. A Dispatch worker may still
    // be finishing one (under ThreadSanitizer on a busy machine, for seconds): look again until every
    // added thread is idle, or for 15 s, after which one still busy or blocked is left behind.
    var added: [ThreadState] = []
    var leftBehind: [ThreadState] = []
    let deadline = ContinuousClock.now + .seconds(15)
    repeat {
        try await Task.sleep(for: .milliseconds(250))
        added = ThreadState.all().filter { !before.contains($0.id) }
        leftBehind = added.filter { !$0.isIdleDispatchWorker }
    } while !leftBehind.isEmpty && ContinuousClock.now < deadline
    print("threads: \(before.count) before, \(peak) at most under 64 tasks, \(during) during, \(added.count) added, "
        + "of which \(added.count - leftBehind.count) idle in Dispatch's pool")
    print("at the peak: \(names)")
    for thread in leftBehind { print("left behind: \(thread)") }
    exit(leftBehind.isEmpty ? 0 : 1)
default:
    let usage = "usage: crud-test-probe log file|console PATH return|exit, commit PATH, read-then-write PATH [MS], hold PATH, outage BACKEND PORT SILENT PASSWORD WRITERS ATTEMPTS [DATABASE], migrate GO BACKEND KEY=VALUE…, "
        + "or threads BACKEND KEY=VALUE…\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}

/// The `commit` case, as a function: blocking calls, which top-level code that also awaits
/// would be warned about.
func commitForever() throws {
    CRUDLogging.queryLogDestinations = []
    let db = Database(configuration: try SQLiteDatabaseConfiguration(arguments.last!))
    try db.create(Ledger.self)
    var transaction = (try db.table(Ledger.self).count()) / 10
    while true {
        try db.transaction {
            let entries = (0 ..< 10).map { Ledger(id: transaction * 10 + $0, transaction: transaction, entry: $0) }
            try db.table(Ledger.self).insert(entries)
        }
        // Reported only once the commit returned: every number printed must be in the file.
        print("committed \(transaction)")
        fflush(nil)
        transaction += 1
    }
}

/// The `read-then-write` case, as a function: blocking calls, which top-level code that also awaits
/// would be warned about.
func readThenWrite() throws {
    CRUDLogging.queryLogDestinations = []
    CRUDLogging.errorLogDestinations = []
    do {
        let busyTimeout = arguments.count == 3 ? Duration.milliseconds(Int(arguments.last!)!) : .seconds(5)
        let path = arguments[arguments.startIndex + 1]
        let db = Database(configuration: try SQLiteDatabaseConfiguration(path, busyTimeout: busyTimeout))
        print("rows: \(try db.table(Ledger.self).count())")
        try db.table(Ledger.self).insert(Ledger(id: -1, transaction: -1, entry: -1))
        print("written")
    } catch {
        print("error: \(error)")
    }
}

/// The `hold` case, as a function: blocking calls, which top-level code that also awaits
/// would be warned about.
func holdTransaction() throws {
    CRUDLogging.queryLogDestinations = []
    let db = Database(configuration: try SQLiteDatabaseConfiguration(arguments.last!))
    let child = try db.createChild()
    try child.beginTransaction()
    print("holding \(try child.table(Ledger.self).count())")
    fflush(nil)
    while readLine() != nil {}
    try child.commitTransaction()
}

import BenchCore
import CRUD
import BenchCRUD
import BenchGRDB
import BenchMySQLRaw
import BenchPostgresNIO
import BenchPostgresRaw
import BenchRaw
import CHeap
import CRUDSQLite
import Foundation

// Runs every workload with every implementation in interleaved rounds, checks that all of them
// read or wrote the same data, and prints the median time of each with its ratio to raw sqlite3.

struct Options {
    var rows = 100_000
    var rounds = 5
    var only: Set<String>?
    /// Implementations to run besides raw sqlite3, which every run includes as the reference.
    var implementations: Set<String>?
    var backends: Set<String> = ["sqlite", "postgres", "mysql"]
    /// How long the soak runs.
    var seconds = 600.0
    /// How many times over task-lookups looks up the dataset's ids.
    var repeats = 1
    /// Whose lookups task-lookups runs: raw sqlite3's or CRUD's.
    var lookupsOf = "crud"
    /// How many workers task-lookups runs at once, each over all the ids (threads for raw, tasks for CRUD).
    var workers = 1
    /// Whether SQLite's mutexes spin before they sleep, for the whole run (`SQLiteProcess.useSpinningMutexes`).
    var spinningMutexes = false

    static let workloads = ["memory", "insert", "fetch", "lookup", "chain-lookup", "filtered", "join", "json", "pages", "generator", "concurrent", "observed",
                            "scaling", "soak", "task-lookups"]
    static let usage = """
        USAGE: crud-bench [--n rows] [--rounds count] [--only workload,...] [--implementations name,...] [--backends name,...]

        Workloads: \(workloads.joined(separator: ", ")). Defaults: --n 100000 --rounds 5, all workloads.
        memory streams --n rows (at least 1,000,000) from SQLite through CRUD's forEach and reports the
        process's resident memory; run it alone for a peak that is the stream's: --only memory.
        soak runs alone, and only when named (--only soak): --seconds (default 600) of async lookups from 8
        tasks and single-row inserts from 2 on one pooled SQLite Database, in rounds of --n lookups and
        --n/10 inserts, printing resident memory and threads at each quarter.
        task-lookups runs alone, and only when named (--only task-lookups): the concurrent workload's one
        worker (SQLite lookups, each a read of its own) --repeats times over the dataset's --n/10 ids, for
        --of crud (from a task, through the async API; the default) or raw (sqlite3 on one thread), once
        and untimed: for counting instructions, the set-up cancelled by taking two counts' difference:
        valgrind --tool=callgrind crud-bench --only task-lookups --n 10000 --repeats R --of crud.
        --workers W runs W such workers at once (threads for raw, tasks for CRUD), for profiling them.
        --of shared (PostgreSQL): CRUD with its pool's 16 sessions on 4 server connections, reads pipelined.
        --spinning-mutexes has SQLite's mutexes spin before they sleep, for the whole run, raw sqlite3's
        too (SQLiteProcess.useSpinningMutexes, which SQLite takes only before its first use).
        With --backends postgres, the same on a throwaway PostgreSQL server (raw: libpq on one thread);
        with --backends mysql, on a throwaway MariaDB (raw: Connector/C on one thread).
        Implementations (SQLite): crud, crud-any (CRUD through AnyDatabase), grdb-record, grdb-codable (raw sqlite3 always runs, as the reference);
        PostgreSQL's insert, fetch and lookup: raw-text (libpq with text results), crud, postgres-nio (raw libpq always runs).
        Backends: sqlite, postgres, mysql (default all). PostgreSQL runs insert, fetch, lookup and concurrent
        against raw libpq on a throwaway server (initdb + pg_ctl; as root, run as the postgres user), and
        scaling: CRUD's fetch and lookups on a primary, through pgbouncer (transaction mode) and on a
        standby (pg_basebackup), when pgbouncer is installed; MySQL
        runs them against raw Connector/C on a throwaway MariaDB (mariadb-install-db + mariadbd).
        Build in release: swift run -c release --package-path Benchmarks crud-bench

        """

    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        func value(_ name: String) throws -> String {
            guard let value = remaining.popFirst() else { throw BenchError("\(name) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--n":
                guard let parsed = Int(try value(argument)), parsed > 0 else { throw BenchError("--n takes a positive number") }
                rows = parsed
            case "--rounds":
                guard let parsed = Int(try value(argument)), parsed > 0 else { throw BenchError("--rounds takes a positive number") }
                rounds = parsed
            case "--only":
                let names = Set(try value(argument).split(separator: ",").map(String.init))
                if let unknown = names.subtracting(Self.workloads).first { throw BenchError("unknown workload \(unknown)") }
                only = names
            case "--backends":
                backends = Set(try value(argument).split(separator: ",").map(String.init))
                if let unknown = backends.subtracting(["sqlite", "postgres", "mysql"]).first { throw BenchError("unknown backend \(unknown)") }
            case "--seconds":
                guard let parsed = Double(try value(argument)), parsed > 0 else { throw BenchError("--seconds takes a positive number") }
                seconds = parsed
            case "--repeats":
                guard let parsed = Int(try value(argument)), parsed > 0 else { throw BenchError("--repeats takes a positive number") }
                repeats = parsed
            case "--spinning-mutexes":
                spinningMutexes = true
            case "--workers":
                guard let parsed = Int(try value(argument)), parsed > 0 else { throw BenchError("--workers takes a positive number") }
                workers = parsed
            case "--of":
                lookupsOf = try value(argument)
                guard ["crud", "raw", "shared"].contains(lookupsOf) else { throw BenchError("--of takes crud, raw or shared") }
            case "--implementations":
                implementations = Set(try value(argument).split(separator: ",").map(String.init))
            case "-h", "--help":
                print(Self.usage, terminator: "")
                exit(0)
            default:
                throw BenchError("unknown option \(argument)")
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

typealias Implementations = [(name: String, type: any BenchImplementation.Type)]

let allImplementations: Implementations = [
    ("raw sqlite3", RawImplementation.self),
    ("CRUD", CRUDImplementation.self),
    ("CRUD, AnyDatabase", CRUDAnyImplementation.self),
    ("GRDB record", GRDBRecordImplementation.self),
    ("GRDB Codable", GRDBCodableImplementation.self),
]

/// The option names of the implementations after raw sqlite3.
let implementationOptions = ["crud", "crud-any", "grdb-record", "grdb-codable"]
/// The option names of PostgreSQL's implementations after raw libpq, for insert, fetch and lookup.
let postgresImplementationOptions = ["raw-text", "crud", "postgres-nio"]

/// The reference, `all`'s first, and those of the rest (named by `options`, in order) that
/// `--implementations` names; all of them where it names none.
func chosen<T>(_ all: [T], options: [String], _ selected: Set<String>?) -> [T] {
    all.enumerated().filter { index, _ in index == 0 || selected?.contains(options[index - 1]) ?? true }.map(\.element)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Runs one workload: every round runs every implementation once, in order, and every result must
/// equal the first implementation's.
func measure(_ title: String, rounds: Int, implementations: [String],
             _ run: (Int) throws -> (Duration, Checksum)) throws -> [Double] {
    var times = Array(repeating: [Double](), count: implementations.count)
    var reference: Checksum?
    for _ in 0 ..< rounds {
        for index in implementations.indices {
            let (time, checksum) = try run(index)
            if let reference, checksum != reference {
                throw BenchError("\(title): \(implementations[index]) gave \(checksum), but \(implementations[0]) gave \(reference)")
            }
            reference = reference ?? checksum
            times[index].append(milliseconds(time))
        }
    }
    print("  \(title): checksums agree (\(reference!))")
    return times.map(median)
}

func crudGenExecutable() throws -> URL {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for name in ["crud-gen", "crud-gen-tool"] {
        let candidate = directory.appending(path: name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw BenchError("crud-gen was not built next to crud-bench in \(directory.path)")
}

func generatorFiles(in directory: URL) throws -> URL {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let template = try String(contentsOf: root.appending(path: "Scripts/scale-model.swift.template"), encoding: .utf8)
    let models = directory.appending(path: "Models")
    try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
    for index in 0 ..< 1_000 {
        let text = template.replacingOccurrences(of: "__INDEX__", with: String(index))
            .replacingOccurrences(of: "__PREVIOUS__", with: String(index == 0 ? 0 : index - 1))
        try text.write(to: models.appending(path: "Model\(index).swift"), atomically: false, encoding: .utf8)
    }
    return models
}

func run(_ options: Options, implementations: Implementations) throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "crud-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    if options.only?.contains("soak") == true {
        try runSoak(options, directory: directory)
        return
    }
    if options.only?.contains("task-lookups") == true {
        try runTaskLookups(options, directory: directory)
        return
    }
    let selected = Options.workloads.filter { !["soak", "task-lookups"].contains($0) && options.only?.contains($0) ?? true }
    if selected.contains("memory"), options.backends.contains("sqlite") {
        try measureStreamingMemory(rows: max(options.rows, 1_000_000), directory: directory)
        if selected == ["memory"] { return }
    }
    let dataset = Dataset(rows: options.rows)
    let names = implementations.map(\.name)
    let clock = ContinuousClock()
    print("crud-bench: \(options.rows) rows, \(options.rounds) rounds, median of each; rounds interleave the implementations")

    let readPath = directory.appending(path: "read.sqlite").path
    if selected.contains(where: { ["fetch", "lookup", "chain-lookup", "filtered", "join", "json", "pages", "concurrent"].contains($0) }) {
        try BenchDatabase.fill(at: readPath, with: dataset)
    }
    func reading(_ body: @escaping (any BenchImplementation) throws -> Checksum) -> (Int) throws -> (Duration, Checksum) {
        { index in
            let implementation = try implementations[index].type.init(path: readPath)
            var checksum = Checksum()
            let time = try clock.measure { checksum = try body(implementation) }
            return (time, checksum)
        }
    }

    /// A workload measured for raw sqlite3 and CRUD only (GRDB is not measured there): times by
    /// implementation, NaN for those left out.
    func measuredWithoutGRDB(_ title: String, _ body: @escaping (any BenchImplementation) throws -> Checksum) throws -> [Double] {
        let measured = names.indices.filter { ["raw sqlite3", "CRUD", "CRUD, AnyDatabase"].contains(names[$0]) }
        let times = try measure(title, rounds: options.rounds, implementations: measured.map { names[$0] }) { index in
            try reading(body)(measured[index])
        }
        return names.map { name in measured.firstIndex { names[$0] == name }.map { times[$0] } ?? .nan }
    }

    if options.backends.contains("postgres") {
        try runPostgres(options, selected: selected, dataset: dataset)
        if selected.contains("scaling") { try runScaling(options, dataset: dataset) }
    }
    if options.backends.contains("mysql") {
        try runMySQL(options, selected: selected, dataset: dataset)
    }
    guard options.backends.contains("sqlite") else { return }
    var rows: [(String, [Double])] = []
    for workload in selected {
        switch workload {
        case "insert":
            var file = 0
            let times = try measure("insert \(dataset.items.count)", rounds: options.rounds, implementations: names) { index in
                file += 1
                let path = directory.appending(path: "insert-\(file).sqlite").path
                try BenchDatabase.create(at: path, indexes: false)
                let implementation = try implementations[index].type.init(path: path)
                // The previous implementation's file is still being written back; let no one pay for it.
                sync()
                let time = try clock.measure { try implementation.insert(dataset.items) }
                return (time, try BenchDatabase.fingerprint(of: path))
            }
            rows.append(("insert \(dataset.items.count) rows, one transaction", times))
        case "fetch":
            rows.append(("fetch \(dataset.items.count) rows", try measure("fetch", rounds: options.rounds, implementations: names, reading { try $0.fetchAll() })))
        case "lookup":
            rows.append(("\(dataset.lookupIds.count) primary-key lookups", try measure("lookup", rounds: options.rounds, implementations: names, reading { try $0.lookup(dataset.lookupIds) })))
        case "chain-lookup":
            rows.append(("\(dataset.lookupIds.count) lookups, where(\\.id == id).first()", try measure("chain-lookup", rounds: options.rounds,
                                                                                                   implementations: names, reading { try $0.chainLookup(dataset.lookupIds) })))
        case "filtered":
            rows.append(("filtered, ordered, limit \(Dataset.filteredLimit) ×\(dataset.thresholds.count)", try measure("filtered", rounds: options.rounds, implementations: names, reading { try $0.filtered(dataset.thresholds) })))
        case "join":
            rows.append(("\(dataset.parents) parents × \(dataset.childrenPerParent) children", try measure("join", rounds: options.rounds, implementations: names, reading { try $0.parentsWithChildren() })))
        case "json":
            // Raw sqlite3 with Foundation's decoder, and CRUD's CRUDJSON column.
            rows.append(("\(dataset.documents) JSON documents decoded", try measuredWithoutGRDB("json") { try $0.documents() }))
        case "pages":
            rows.append(("\(dataset.pageRequests.count) pages with totals, optional filters",
                         try measuredWithoutGRDB("pages") { try $0.pages(dataset.pageRequests) }))
        case "generator":
            let models = try generatorFiles(in: directory)
            let executable = try crudGenExecutable()
            let output = directory.appending(path: "Generated.swift")
            var times: [Double] = []
            for _ in 0 ..< options.rounds {
                try? FileManager.default.removeItem(at: output)
                let process = Process()
                process.executableURL = executable
                process.arguments = ["--output", output.path, "--root", directory.path, models.path]
                let time = try clock.measure {
                    try process.run()
                    process.waitUntilExit()
                }
                let generated = try String(contentsOf: output, encoding: .utf8)
                let count = generated.components(separatedBy: "\n    init<Row: CRUDRowReader>(crudRow row: Row) throws {").count - 1
                guard process.terminationStatus == 0, count == 1_000 else {
                    throw BenchError("crud-gen exited \(process.terminationStatus) with \(count) models instead of 1000")
                }
                times.append(milliseconds(time))
            }
            print("  generator: 1000 models generated each round")
            rows.append(("crud-gen, 1000 files / 10000 properties", names.map { $0 == "CRUD" ? median(times) : .nan }))
        default:
            break
        }
    }
    report("SQLite", rows, names: names)
    if selected.contains("concurrent") {
        try runConcurrent(options, dataset: dataset, readPath: readPath, directory: directory)
    }
    if selected.contains("observed") {
        var file = 0
        try runObserved("SQLite", options, dataset: dataset) { slowObserver in
            file += 1
            let path = directory.appending(path: "observed-\(file).sqlite").path
            try BenchDatabase.create(at: path, indexes: false)
            return (try CRUDObservedInserts(path: path, postgres: false, slowObserver: slowObserver), { try BenchDatabase.fingerprint(of: path) })
        }
    }
}

/// Row-by-row inserts in transactions of `Dataset.transactionRows`, unobserved and watched by an
/// observer that takes 0.1 ms per change; the observed round also checks that every change arrived.
func runObserved(_ backend: String, _ options: Options, dataset: Dataset,
                 open: (Bool) throws -> (CRUDObservedInserts, () throws -> Checksum)) throws {
    let names = ["CRUD", "CRUD, observer taking 0.1 ms per change"]
    let clock = ContinuousClock()
    let row = try measure("\(backend) observed insert", rounds: options.rounds, implementations: names) { index in
        let (workload, fingerprint) = try open(index == 1)
        sync()
        let time = try clock.measure { try workload.insert(dataset.items) }
        if index == 1 {
            let delivered = workload.delivered(waitingFor: dataset.items.count)
            guard delivered == dataset.items.count else {
                throw BenchError("the observer got \(delivered) of \(dataset.items.count) changes")
            }
        }
        return (time, try fingerprint())
    }
    report("\(backend), observed", [("insert \(dataset.items.count) rows one by one, \(Dataset.transactionRows) per transaction", row)], names: names)
}

/// The workers of the concurrent workloads: the lookup workers each look up every id of the
/// dataset's list, each lookup a read of its own (one worker: a task's sequential async calls
/// against blocking C on one thread); the insert workers share the items.
let lookupWorkerCounts = [1, 4, 16]
let insertWorkers = 8

func insertSlices(_ dataset: Dataset) -> [[ItemData]] {
    let share = (dataset.items.count + insertWorkers - 1) / insertWorkers
    return (0 ..< insertWorkers).map { Array(dataset.items[min($0 * share, dataset.items.count) ..< min(($0 + 1) * share, dataset.items.count)]) }
}

typealias ConcurrentImplementations = [(name: String, type: any BenchConcurrentImplementation.Type)]

/// A row per count of lookup workers, each worker looking up every id of the dataset's list.
func concurrentLookupRows(_ label: String, _ implementations: ConcurrentImplementations, rounds: Int, dataset: Dataset,
                          path: String) throws -> [(String, [Double])] {
    let clock = ContinuousClock()
    return try lookupWorkerCounts.map { workers in
        let lookups = Array(repeating: dataset.lookupIds, count: workers)
        let title = workers == 1 ? "1 worker, \(dataset.lookupIds.count) sequential primary-key lookups, each a read"
            : "\(workers) workers × \(dataset.lookupIds.count) primary-key lookups, each a read"
        return (title, try measure("\(label), \(workers)", rounds: rounds, implementations: implementations.map(\.name)) { index in
            let implementation = try implementations[index].type.init(path: path)
            var checksum = Checksum()
            let time = try clock.measure { checksum = try implementation.concurrentLookups(lookups) }
            return (time, checksum)
        })
    }
}

/// The row of `insertWorkers` workers inserting the dataset between them, each round into a fresh
/// database that `fresh` makes (returning what the implementations open), checked by `fingerprint`.
func concurrentInsertRow(_ label: String, _ implementations: ConcurrentImplementations, rounds: Int, dataset: Dataset,
                         fresh: () throws -> String, fingerprint: (String) throws -> Checksum) throws -> (String, [Double]) {
    let clock = ContinuousClock()
    let slices = insertSlices(dataset)
    let title = "\(insertWorkers) workers inserting \(dataset.items.count) rows, \(Dataset.transactionRows) per transaction"
    return (title, try measure(label, rounds: rounds, implementations: implementations.map(\.name)) { index in
        let path = try fresh()
        let implementation = try implementations[index].type.init(path: path)
        sync()
        let time = try clock.measure { try implementation.concurrentInserts(slices) }
        return (time, try fingerprint(path))
    })
}

/// Concurrent lookups and inserts on SQLite: raw sqlite3 with a connection per thread, CRUD with one
/// shared Database from tasks, GRDB's DatabasePool from tasks; then raw sqlite3 and CRUD again on a
/// database the process alone opens (SQLite's unix-excl VFS, CRUD's `exclusiveToProcess`).
func runConcurrent(_ options: Options, dataset: Dataset, readPath: String, directory: URL) throws {
    let implementations: ConcurrentImplementations = [
        ("raw sqlite3, connection per thread", RawImplementation.self),
        ("CRUD", CRUDImplementation.self),
        ("CRUD on CRUDThreads", CRUDThreadsImplementation.self),
        ("GRDB DatabasePool", GRDBPoolImplementation.self),
        ("raw sqlite3, unix-excl", RawProcessExclusiveImplementation.self),
        ("CRUD, exclusiveToProcess", CRUDProcessExclusiveImplementation.self),
    ]
    var rows = try concurrentLookupRows("concurrent lookup", implementations, rounds: options.rounds, dataset: dataset, path: readPath)
    var file = 0
    rows.append(try concurrentInsertRow("concurrent insert", implementations, rounds: options.rounds, dataset: dataset, fresh: {
        file += 1
        let path = directory.appending(path: "concurrent-\(file).sqlite").path
        try BenchDatabase.create(at: path, indexes: false)
        return path
    }, fingerprint: { try BenchDatabase.fingerprint(of: $0) }))
    report("SQLite, concurrent", rows, names: implementations.map(\.name))
}

typealias ServerImplementations = [(name: String, type: any BenchServerImplementation.Type)]

/// Makes the database the read workloads share (`create` makes an empty one and returns its URL),
/// filled by the raw implementation when a workload reads.
func readDatabase(_ workloads: [String], _ raw: any BenchServerImplementation.Type, dataset: Dataset,
                  create: (String) throws -> String) throws -> String {
    let url = try create("bench_read")
    if workloads.contains(where: { $0 != "insert" }) { try raw.init(path: url).insert(dataset.items) }
    return url
}

/// Insert, fetch and lookups on a server, each round on a fresh connection: reads on `readURL`,
/// inserts into a database `create` makes, checksummed by `fingerprint` over the stored rows.
func runServerWorkloads(_ label: String, _ workloads: [String], _ implementations: ServerImplementations, rounds: Int,
                        dataset: Dataset, readURL: String, create: (String) throws -> String,
                        fingerprint: (String) throws -> Checksum) throws -> [(String, [Double])] {
    let names = implementations.map(\.name)
    let clock = ContinuousClock()
    func reading(_ body: @escaping (any BenchServerImplementation) throws -> Checksum) -> (Int) throws -> (Duration, Checksum) {
        { index in
            let implementation = try implementations[index].type.init(path: readURL)
            var checksum = Checksum()
            let time = try clock.measure { checksum = try body(implementation) }
            return (time, checksum)
        }
    }
    var rows: [(String, [Double])] = []
    for workload in workloads {
        switch workload {
        case "insert":
            rows.append(("insert \(dataset.items.count) rows, one transaction", try measure("\(label) insert", rounds: rounds, implementations: names) { index in
                let url = try create("bench_insert")
                let implementation = try implementations[index].type.init(path: url)
                sync()
                let time = try clock.measure { try implementation.insert(dataset.items) }
                return (time, try fingerprint(url))
            }))
        case "fetch":
            rows.append(("fetch \(dataset.items.count) rows", try measure("\(label) fetch", rounds: rounds, implementations: names, reading { try $0.fetchAll() })))
        case "lookup":
            rows.append(("\(dataset.lookupIds.count) primary-key lookups", try measure("\(label) lookup", rounds: rounds, implementations: names,
                                                                                      reading { try $0.lookup(dataset.lookupIds) })))
        default:
            break
        }
    }
    return rows
}

/// Insert, fetch and lookups on MariaDB: raw Connector/C (prepared statements, binary protocol) and CRUD.
func runMySQL(_ options: Options, selected: [String], dataset: Dataset) throws {
    let workloads = selected.filter { ["insert", "fetch", "lookup", "concurrent"].contains($0) }
    guard !workloads.isEmpty else { return }
    let implementations: ServerImplementations = [("raw Connector/C", RawMySQLImplementation.self), ("CRUD", CRUDMySQLImplementation.self)]
    CRUDLogging.queryLogDestinations = []
    let mariadb = try MariaDBServer.start()
    defer { mariadb.stop() }
    let server = "mysql://\(MariaDBServer.user):\(MariaDBServer.password)@127.0.0.1:\(mariadb.port)/"
    print("MySQL: throwaway MariaDB on port \(mariadb.port)")
    let create = { try MySQLBenchDatabase.create(server: server, database: $0) }
    let readURL = try readDatabase(workloads, RawMySQLImplementation.self, dataset: dataset, create: create)
    let rows = try runServerWorkloads("mysql", workloads.filter { $0 != "concurrent" }, implementations, rounds: options.rounds,
                                      dataset: dataset, readURL: readURL, create: create, fingerprint: MySQLBenchDatabase.fingerprint)
    if !rows.isEmpty { report("MySQL (MariaDB)", rows, names: implementations.map(\.name)) }
    guard workloads.contains("concurrent") else { return }

    // Raw Connector/C with a connection per thread against CRUD's pool, shared by tasks.
    let concurrent: ConcurrentImplementations = [
        ("raw Connector/C, connection per thread", RawMySQLImplementation.self),
        ("CRUD", CRUDMySQLImplementation.self),
    ]
    var concurrentRows = try concurrentLookupRows("mysql concurrent lookup", concurrent, rounds: options.rounds, dataset: dataset,
                                                  path: readURL)
    concurrentRows.append(try concurrentInsertRow("mysql concurrent insert", concurrent, rounds: options.rounds, dataset: dataset,
                                                  fresh: { try create("bench_concurrent_insert") }, fingerprint: MySQLBenchDatabase.fingerprint))
    report("MySQL (MariaDB), concurrent", concurrentRows, names: concurrent.map(\.name))
}

/// Insert, fetch and lookups on PostgreSQL: raw libpq (binary and text results) and CRUD.
func runPostgres(_ options: Options, selected: [String], dataset: Dataset) throws {
    let workloads = selected.filter { ["insert", "fetch", "lookup", "concurrent", "observed"].contains($0) }
    guard !workloads.isEmpty else { return }
    let implementations = chosen([
        ("raw libpq", RawPostgresImplementation.self),
        ("raw libpq, text results", RawPostgresTextImplementation.self),
        ("CRUD", CRUDPostgresImplementation.self),
        ("PostgresNIO", PostgresNIOImplementation.self),
    ] as ServerImplementations, options: postgresImplementationOptions, options.implementations)
    let cluster = try PostgresCluster.start()
    defer { cluster.stop() }
    let server = "postgresql://postgres:\(PostgresCluster.password)@127.0.0.1:\(cluster.port)/postgres"
    print("PostgreSQL: throwaway server on port \(cluster.port)")
    let create = { try PostgresBenchDatabase.create(server: server, schema: $0) }
    let readURL = try readDatabase(workloads, RawPostgresImplementation.self, dataset: dataset, create: create)
    let rows = try runServerWorkloads("postgres", workloads.filter { ["insert", "fetch", "lookup"].contains($0) }, implementations,
                                      rounds: options.rounds, dataset: dataset, readURL: readURL, create: create,
                                      fingerprint: PostgresBenchDatabase.fingerprint)
    report("PostgreSQL", rows, names: implementations.map(\.name))
    if workloads.contains("observed") {
        try runObserved("PostgreSQL", options, dataset: dataset) { slowObserver in
            let url = try PostgresBenchDatabase.create(server: server, schema: "bench_observed")
            return (try CRUDObservedInserts(path: url, postgres: true, slowObserver: slowObserver), { try PostgresBenchDatabase.fingerprint(url) })
        }
    }
    guard workloads.contains("concurrent") else { return }

    // Raw libpq with a connection per thread against CRUD's pool, shared by tasks.
    let concurrent: ConcurrentImplementations = [
        ("raw libpq, connection per thread", RawPostgresImplementation.self),
        ("CRUD", CRUDPostgresImplementation.self),
        ("CRUD on CRUDThreads", CRUDPostgresThreadsImplementation.self),
        ("CRUD, 4 server connections", CRUDPostgresSharedImplementation.self),
        ("PostgresNIO", PostgresNIOImplementation.self),
    ]
    var concurrentRows = try concurrentLookupRows("postgres concurrent lookup", concurrent, rounds: options.rounds, dataset: dataset,
                                                  path: readURL)
    concurrentRows.append(try concurrentInsertRow("postgres concurrent insert", concurrent, rounds: options.rounds, dataset: dataset,
                                                  fresh: { try create("bench_concurrent_insert") }, fingerprint: PostgresBenchDatabase.fingerprint))
    report("PostgreSQL, concurrent", concurrentRows, names: concurrent.map(\.name))
}

func report(_ backend: String, _ rows: [(String, [Double])], names: [String]) {
    func cell(_ value: Double, raw: Double, isRaw: Bool) -> String {
        guard !value.isNaN else { return "—" }
        let time = String(format: "%.1f ms", value)
        guard !isRaw, !raw.isNaN else { return time }
        return time + String(format: " (%.2f×)", value / raw)
    }
    let header = ["\(backend) workload"] + names
    var table = [header]
    for (title, times) in rows {
        table.append([title] + times.indices.map { cell(times[$0], raw: times[0], isRaw: $0 == 0) })
    }
    let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
    print("")
    for (index, line) in table.enumerated() {
        print(line.indices.map { line[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  "))
        if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
    }
    print("\n(×: time relative to \(names[0]); lower is faster)")
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    if options.spinningMutexes, !(try SQLiteProcess.useSpinningMutexes()) {
        throw BenchError("--spinning-mutexes: this platform's mutexes do not spin, and SQLite keeps its own")
    }
    if let unknown = options.implementations?.subtracting(implementationOptions + postgresImplementationOptions).first {
        throw BenchError("unknown implementation \(unknown)")
    }
    try run(options, implementations: chosen(allImplementations, options: implementationOptions, options.implementations))
} catch {
    FileHandle.standardError.write(Data("crud-bench: error: \(error)\n".utf8))
    exit(1)
}

/// Runs the concurrent workload's one worker's lookups `--repeats` times over, with the raw C client or
/// CRUD, and checks that every id was found.
func runTaskLookups(_ options: Options, directory: URL) throws {
    let dataset = Dataset(rows: options.rows)
    let ids = Array(Array(repeating: dataset.lookupIds, count: options.repeats).joined())
    let raw = options.lookupsOf == "raw"
    let lookups = ids.count * options.workers
    if options.lookupsOf == "shared", options.backends != ["postgres"] {
        throw BenchError("task-lookups: --of shared is PostgreSQL's (--backends postgres)")
    }
    let checksum: Checksum
    /// The lookups on `implementation`, their wall and CPU time (the process's threads) a lookup printed.
    func timed(_ implementation: any BenchConcurrentImplementation) throws -> Checksum {
        let cpuBefore = processCPUSeconds(), started = ContinuousClock.now
        let checksum = try implementation.concurrentLookups(Array(repeating: ids, count: options.workers))
        let wall = ContinuousClock.now - started, cpu = processCPUSeconds() - cpuBefore
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        print(String(format: "  %.2f µs a lookup, %.2f µs of CPU", seconds * 1e6 / Double(lookups), cpu * 1e6 / Double(lookups)))
        return checksum
    }
    if options.backends == ["postgres"] {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let server = "postgresql://postgres:\(PostgresCluster.password)@127.0.0.1:\(cluster.port)/postgres"
        let url = try readDatabase(["lookup"], RawPostgresImplementation.self, dataset: dataset,
                                   create: { try PostgresBenchDatabase.create(server: server, schema: $0) })
        let type: any BenchConcurrentImplementation.Type = switch options.lookupsOf {
        case "raw": RawPostgresImplementation.self
        case "shared": CRUDPostgresSharedImplementation.self
        default: CRUDPostgresImplementation.self
        }
        checksum = try timed(type.init(path: url))
    } else if options.backends == ["mysql"] {
        CRUDLogging.queryLogDestinations = []
        let mariadb = try MariaDBServer.start()
        defer { mariadb.stop() }
        let server = "mysql://\(MariaDBServer.user):\(MariaDBServer.password)@127.0.0.1:\(mariadb.port)/"
        let url = try readDatabase(["lookup"], RawMySQLImplementation.self, dataset: dataset,
                                   create: { try MySQLBenchDatabase.create(server: server, database: $0) })
        let type: any BenchConcurrentImplementation.Type = raw ? RawMySQLImplementation.self : CRUDMySQLImplementation.self
        checksum = try timed(type.init(path: url))
    } else {
        let path = directory.appending(path: "read.sqlite").path
        try BenchDatabase.fill(at: path, with: dataset)
        let type: any BenchConcurrentImplementation.Type = raw ? RawImplementation.self : CRUDImplementation.self
        checksum = try timed(type.init(path: path))
    }
    guard checksum.rows == lookups else { throw BenchError("task-lookups: found \(checksum.rows) of \(lookups) ids") }
    print("crud-bench task-lookups: \(options.lookupsOf), \(options.workers) × \(ids.count) lookups, every id found")
}

/// Runs the soak and prints what it saw at each quarter of its time.
func runSoak(_ options: Options, directory: URL) throws {
    let lookups = options.rows, inserts = max(2, options.rows / 10)
    print("crud-bench soak: \(Int(options.seconds)) s of rounds of \(lookups) async lookups (8 tasks) and \(inserts) inserts (2 tasks)")
    let before = residentBytes()
    print("  before: resident \(String(format: "%.1f MB", Double(before) / 1_048_576)), \(threadCount()) threads")
    try soak(path: directory.appending(path: "soak.sqlite").path, rows: 10_000, lookups: lookups, inserts: inserts,
             seconds: options.seconds) { progress, found, stored in
        print(String(format: "  %3.0f%%: resident %.1f MB, heap in use %.1f MB, %d threads, %d lookups, %d inserts", progress * 100,
                     Double(residentBytes()) / 1_048_576, Double(crud_bench_heap_in_use()) / 1_048_576, threadCount(), found, stored))
    }
    print("  every lookup found its row; every insert is stored")
}

/// The CPU time the process's threads have used, user and system, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// How many threads the process has now (Linux: /proc/self/task).
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// The process's resident memory now, in bytes (Linux: /proc/self/statm).
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// Streams `rows` rows that SQLite generated (the process never holds them) through CRUD's
/// `forEach`, sampling resident memory every 10,000 rows; the rows are checked against raw sqlite3's.
func measureStreamingMemory(rows: Int, directory: URL) throws {
    let path = directory.appending(path: "memory.sqlite").path
    try BenchDatabase.fillGenerated(at: path, rows: rows)
    let before = residentBytes()
    var samples: [Int] = []
    let checksum = try streamItemsThroughCRUD(path: path, every: 10_000) { samples.append(residentBytes()) }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let expected = try RawImplementation(path: path).fetchAll()
    guard checksum == expected, checksum.rows == rows else {
        throw BenchError("memory: CRUD streamed \(checksum), raw sqlite3 read \(expected)")
    }
    let mb = { (bytes: Int) in String(format: "%.1f MB", Double(bytes) / 1_048_576) }
    let tenth = samples.count / 10
    print("""

        ## Streaming \(rows) rows through CRUD's forEach (checksums agree with raw sqlite3: \(checksum))
        resident before the query: \(mb(before)); while streaming: \(mb(samples.min() ?? 0)) to \(mb(samples.max() ?? 0))
        (after the first tenth of the rows: \(mb(samples[tenth])), at the end: \(mb(samples.last ?? 0))); process peak: \(mb(Int(usage.ru_maxrss) * 1_024))

        """)
}

import BenchCore
import BenchCRUD
import BenchPostgresRaw
import Foundation

/// CRUD's reads on PostgreSQL beyond one server: on the primary directly (also with the pooler's
/// unnamed statements), through pgbouncer in transaction pooling mode (`transactionPooling`), and
/// routed to a streaming standby
/// (`readsFromStandbys`), each against the same rows; skipped where pgbouncer is not installed.
func runScaling(_ options: Options, dataset: Dataset) throws {
    guard PgBouncer.binary != nil else {
        print("PostgreSQL scaling: pgbouncer is not installed (apt-get install pgbouncer): skipped")
        return
    }
    let settings = ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300", "wal_level=replica",
                    "max_wal_senders=10", "hot_standby=on"]
    let primary = try PostgresCluster.start(settings: settings)
    defer { primary.stop() }
    let credentials = "postgres:\(PostgresCluster.password)@127.0.0.1"
    let readURL = try PostgresBenchDatabase.create(server: "postgresql://\(credentials):\(primary.port)/postgres", schema: "bench_read")
    try RawPostgresImplementation(path: readURL).insert(dataset.items)
    let standby = try PostgresCluster.standby(of: primary, named: "standby", settings: settings)
    defer { standby.stop() }
    let standbyURL = "postgresql://\(credentials):\(standby.port)/postgres?options=-csearch_path%3Dbench_read"
    let rows = try PostgresBenchDatabase.fingerprint(readURL)
    let deadline = ContinuousClock.now + .seconds(60)
    while (try? PostgresBenchDatabase.fingerprint(standbyURL)) != rows {
        guard ContinuousClock.now < deadline else { throw BenchError("the standby did not replay the rows within 60 s") }
        Thread.sleep(forTimeInterval: 0.1)
    }
    let bouncer = try PgBouncer.start(in: primary, schemas: ["bench_read"])
    defer { bouncer.stop() }
    print("PostgreSQL scaling: primary on port \(primary.port), standby on \(standby.port), pgbouncer on \(bouncer.port)")

    // The second column parts the pooler's cost: statements sent whole at every run, without the hop.
    let names = ["CRUD, primary", "CRUD, primary, transactionPooling", "CRUD through pgbouncer", "CRUD, reads on a standby"]
    let open: [() throws -> CRUDPostgresScalingImplementation] = [
        { try .direct(url: readURL) },
        { try .pooled(url: readURL) },
        { try .pooled(url: "postgresql://postgres@127.0.0.1:\(bouncer.port)/bench_read") },
        { try .standbyReads(primary: readURL, standby: standbyURL) },
    ]
    let clock = ContinuousClock()
    func timing(_ body: @escaping (CRUDPostgresScalingImplementation) throws -> Checksum) -> (Int) throws -> (Duration, Checksum) {
        { index in
            let implementation = try open[index]()
            var checksum = Checksum()
            let time = try clock.measure { checksum = try body(implementation) }
            return (time, checksum)
        }
    }
    var table: [(String, [Double])] = []
    table.append(("fetch \(dataset.items.count) rows", try measure("scaling fetch", rounds: options.rounds, implementations: names,
                                                                   timing { try $0.fetchAll() })))
    table.append(("\(dataset.lookupIds.count) primary-key lookups, each a read",
                  try measure("scaling lookup", rounds: options.rounds, implementations: names, timing { try $0.lookup(dataset.lookupIds) })))
    let workers = 16
    table.append(("\(workers) tasks × \(dataset.lookupIds.count) primary-key lookups",
                  try measure("scaling concurrent lookup", rounds: options.rounds, implementations: names, timing {
                      try $0.concurrentLookups(Array(repeating: dataset.lookupIds, count: workers))
                  })))
    report("PostgreSQL, scaling out", table, names: names)
}

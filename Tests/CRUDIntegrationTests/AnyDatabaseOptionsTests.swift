@_spi(CRUDDriver) import CRUD
#if MySQL
import CRUDMySQL
#endif
import CRUDPostgres
import CRUDSQLite
import Foundation
import Testing

/// Every option of each driver's configuration reaches an `AnyDatabase`: by the URL's query
/// (`?statementTimeout=300ms`), by the driver's typed form (`.sqlite(exclusiveToProcess: true)`),
/// and by erasing a driver's own configuration (`AnyDatabase(erasing:)`).
@Suite("AnyDatabase options")
struct AnyDatabaseOptionsTests {
    static func url(_ url: String, with query: String) -> String {
        url + (url.contains("?") ? "&" : "?") + query
    }

    @Test("a statement timeout in the URL bounds every call", arguments: Backend.all)
    func statementTimeout(_ backend: Backend) async throws {
        let db = try AnyDatabase(url: Self.url(backend.freshURL(), with: "statementTimeout=300ms"), drivers: AnyDatabaseTests.drivers)
        // The call fails as timed out, naming the URL's 300 ms: the option reached the pool. (How
        // promptly a timeout stops a statement is CancellationTests'.)
        let timedOut = await #expect(throws: CRUDSQLExeError.self) {
            try await CancellationTests.onOwnThreads { _ = try await db.sql(CancellationTests.longStatement(backend), ConnectionNumber.self) }
        }
        #expect(timedOut?.kind == .timedOut, "\(String(describing: timedOut))")
        #expect(timedOut?.msg.contains("timeout of 300.000 ms") == true, "\(String(describing: timedOut))")
        try await db.shutdown()
    }

    @Test("the pool's size and wait in the URL: one connection, and a caller waits 200 ms for it", arguments: Backend.all.filter { $0 != .sqlite })
    func poolOptions(_ backend: Backend) async throws {
        // On the suite's own threads: the held transaction waits for this task, which a loaded
        // cooperative pool kept from running for seconds.
        try await CancellationTests.onOwnThreads { try await poolOptions(url: Self.url(backend.freshURL(), with: "maximumConnections=1&poolTimeout=200ms")) }
    }

    func poolOptions(url: String) async throws {
        let db = try AnyDatabase(url: url, drivers: AnyDatabaseTests.drivers)
        try await db.create(Course.self)
        let held = try await HeldTransaction(on: db)
        // A caller on a thread of its own, outside any task, waits for the pool's timeout on that
        // thread: what it says names both options.
        let waited = await #expect(throws: CRUDSQLExeError.self) { _ = try await onThread { try db.table(Course.self).count() } }
        #expect(waited?.kind == .busyOrLocked, "\(String(describing: waited))")
        #expect(waited?.msg.contains("timed out after 0.2 seconds") == true && waited?.msg.contains("all 1 of the pool") == true,
                "\(String(describing: waited))")
        try await held.release()
        #expect(try await db.table(Course.self).count() == 1)
        try await db.shutdown()
    }

    @Test("exclusiveToProcess by the URL, the typed driver and an erased configuration: another process is locked out")
    func sqliteExclusiveToProcess() async throws {
        let opened: [(String, (String) throws -> AnyDatabase)] = [
            ("URL", { try AnyDatabase(url: "sqlite://\($0)?exclusiveToProcess=true&busyTimeout=2s&maxReaders=2", drivers: [.sqlite]) }),
            ("typed", { try AnyDatabase(url: "sqlite://\($0)", drivers: [.sqlite(exclusiveToProcess: true)]) }),
            ("erased", { try AnyDatabase(erasing: SQLiteDatabaseConfiguration($0, exclusiveToProcess: true)) }),
        ]
        for (how, open) in opened {
            let path = Backend.temporaryFile("sqlite")
            let db = try open(path)
            try await db.create(Ledger.self)
            try await db.table(Ledger.self).insert(Ledger(id: 1, transaction: 0, entry: 0))
            #expect(try await db.table(Ledger.self).count() == 1, "\(how)")
            try await offCooperativePool {
                let locked = try BuiltProgram("crud-test-probe").run(["read-then-write", path, "200"])
                #expect(locked.output.contains("database is locked"), "\(how): \(locked.output)")
            }
            try await db.shutdown()
        }
    }

    @Test("the URL's options are checked: a misspelled one, a value that does not fit, one given twice")
    func misspelledOptions() throws {
        let path = Backend.temporaryFile("sqlite")
        let misspelled = #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "sqlite:\(path)?exclusiveToProces=true", drivers: [.sqlite]) }
        #expect(misspelled?.msg.contains("exclusiveToProces=true, which is none of its options (busyTimeout") == true, "\(String(describing: misspelled))")
        let duration = #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "sqlite:\(path)?busyTimeout=soon", drivers: [.sqlite]) }
        #expect(duration?.msg == "the database URL's busyTimeout=soon is not a duration, as busyTimeout=250ms, busyTimeout=10s or busyTimeout=2m")
        let twice = #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "sqlite:\(path)?maxReaders=2&maxReaders=3", drivers: [.sqlite]) }
        #expect(twice?.msg == "the database URL gives maxReaders twice: give it once")
        // An SQLite URI keeps its own query items beside CRUD's.
        let uri = try AnyDatabase(url: "sqlite:file:\(path)?mode=rwc&maxReaders=2", drivers: [.sqlite])
        try uri.create(Ledger.self)
        #expect(try uri.table(Ledger.self).count() == 0)
        try uri.shutdown()
    }

    @Test("PostgreSQL's options in the URL: serverConnections, transactionPooling, readsFromStandbys and connectsOnFirstUse reach the configuration")
    func postgresOptions() async throws {
        // Two that cannot go together are refused, naming both: each reached the configuration.
        let both = #expect(throws: CRUDSQLExeError.self) {
            try AnyDatabase(url: "postgres://nobody@127.0.0.1:1/app?transactionPooling=true&serverConnections=2", drivers: [.postgres])
        }
        #expect(both?.msg.contains("transactionPooling and serverConnections cannot go together") == true, "\(String(describing: both))")
        let standbys = #expect(throws: CRUDSQLExeError.self) {
            try AnyDatabase(url: "postgres://nobody@127.0.0.1:1,127.0.0.1:2/app?readsFromStandbys=true&serverConnections=2", drivers: [.postgres])
        }
        #expect(standbys?.msg.contains("reads routed to standbys cannot go with serverConnections") == true, "\(String(describing: standbys))")
        // Connecting on first use: nothing is reached at start, and a ping says the server is not there.
        let later = try AnyDatabase(url: "postgres://nobody@127.0.0.1:1/app?connectsOnFirstUse=true&connect_timeout=2", drivers: [.postgres])
        let ping = await #expect(throws: CRUDSQLExeError.self) { try await later.ping() }
        #expect(ping?.kind == .connectionLost, "\(String(describing: ping))")
        try await later.shutdown()
    }

    #if MySQL
    @Test("a MySQL URL names several servers to try in order, and takes the pool's options")
    func mysqlHosts() throws {
        let configuration = try MySQLDatabaseConfiguration(url: "mysql://app@node1:3307,node2,10.0.0.3:3308/shop", pool: .init(connectsOnFirstUse: true))
        #expect(configuration.target == "database \"shop\" at node1:3307, node2:3306, 10.0.0.3:3308")
        let unknown = #expect(throws: CRUDSQLGenError.self) { try AnyDatabase(url: "mysql://app@node1/shop?maxConnections=4", drivers: [.mysql]) }
        #expect(unknown?.msg.contains("maxConnections, which is none of its options") == true, "\(String(describing: unknown))")
        let erased = try AnyDatabase(url: "mysql://app@127.0.0.1:1/shop?connectsOnFirstUse=true&maximumConnections=3", drivers: [.mysql])
        #expect(erased.configuration.databaseSystem == "MySQL", "connected on first use: the server is not known yet")
    }
    #endif
}

import BenchCore
import CRUD
import CRUDMySQL
import CRUDPostgres
import CRUDSQLite
import Foundation

/// CRUD on SQLite.
public final class CRUDImplementation: CRUDSQLiteWorkloads {
    let workloads: CRUDWorkloads<SQLiteDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try SQLiteDatabaseConfiguration(path)))
    }
}

/// CRUD on SQLite through `AnyDatabase`, the database picked at run time by URL: the same workloads
/// as `CRUDImplementation`, each driver call behind one more indirection.
public final class CRUDAnyImplementation: CRUDSQLiteWorkloads {
    let workloads: CRUDWorkloads<AnyDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(try AnyDatabase(url: "sqlite:" + path, drivers: [.sqlite]))
    }
}

/// An implementation of the SQLite workloads by `CRUDWorkloads` on some configuration.
protocol CRUDSQLiteWorkloads: BenchImplementation {
    associatedtype Configuration: DatabaseConfigurationProtocol
    var workloads: CRUDWorkloads<Configuration> { get }
}

extension CRUDSQLiteWorkloads {
    public func insert(_ items: [ItemData]) throws { try workloads.insert(items) }
    public func fetchAll() throws -> Checksum { try workloads.fetchArray() }
    /// In one read transaction, as the raw and GRDB lookups.
    public func lookup(_ ids: [Int64]) throws -> Checksum { try workloads.db.transaction { try workloads.lookup(ids) } }
    /// `where(\.id == id).first()` per id, in one read transaction as the others.
    public func chainLookup(_ ids: [Int64]) throws -> Checksum { try workloads.db.transaction { try workloads.chainLookup(ids) } }
    public func filtered(_ thresholds: [Double]) throws -> Checksum { try workloads.filtered(thresholds) }
    public func parentsWithChildren() throws -> Checksum { try workloads.parentsWithChildren() }
    public func documents() throws -> Checksum { try workloads.documents() }
    public func pages(_ requests: [PageRequest]) throws -> Checksum { try workloads.pages(requests) }
}

extension CRUDImplementation: BenchConcurrentImplementation {
    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try workloads.concurrentInserts(slices) }
}

extension CRUDMySQLImplementation: BenchConcurrentImplementation {
    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try workloads.concurrentInserts(slices) }
}

extension CRUDPostgresImplementation: BenchConcurrentImplementation {
    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try workloads.concurrentInserts(slices) }
}

/// CRUD on SQLite with the worker tasks preferring `CRUDThreads`, so their calls run inline.
/// CRUD's concurrent workloads on a database that this process alone opens (`exclusiveToProcess`).
public final class CRUDProcessExclusiveImplementation: BenchConcurrentImplementation {
    private let workloads: CRUDWorkloads<SQLiteDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try SQLiteDatabaseConfiguration(path, exclusiveToProcess: true)))
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try workloads.concurrentInserts(slices) }
}

public final class CRUDThreadsImplementation: BenchConcurrentImplementation {
    private let workloads: CRUDWorkloads<SQLiteDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try SQLiteDatabaseConfiguration(path)), preferringLibraryThreads: true)
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try workloads.concurrentInserts(slices) }
}

/// CRUD on PostgreSQL with the worker tasks preferring `CRUDThreads`.
public final class CRUDPostgresThreadsImplementation: BenchConcurrentImplementation {
    private let workloads: CRUDWorkloads<PostgresDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try PostgresDatabaseConfiguration(url: path)), preferringLibraryThreads: true)
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try workloads.concurrentInserts(slices) }
}

/// CRUD on PostgreSQL with its pool's 16 sessions sharing 4 server connections, async reads
/// pipelined on them.
public final class CRUDPostgresSharedImplementation: BenchConcurrentImplementation {
    private let workloads: CRUDWorkloads<PostgresDatabaseConfiguration>

    public init(path: String) throws {
        let configuration = try PostgresDatabaseConfiguration(url: path, pool: .init(maximumConnections: 16), serverConnections: 4)
        workloads = CRUDWorkloads(Database(configuration: configuration))
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try workloads.concurrentInserts(slices) }
}

/// CRUD on PostgreSQL; `path` is a connection URL.
public final class CRUDPostgresImplementation: BenchServerImplementation {
    fileprivate let workloads: CRUDWorkloads<PostgresDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try PostgresDatabaseConfiguration(url: path)))
    }

    public func insert(_ items: [ItemData]) throws { try workloads.insert(items) }
    public func fetchAll() throws -> Checksum { try workloads.fetchAll() }
    public func lookup(_ ids: [Int64]) throws -> Checksum { try workloads.lookup(ids) }
}

/// CRUD on MySQL or MariaDB; `path` is a connection URL.
public final class CRUDMySQLImplementation: BenchServerImplementation {
    fileprivate let workloads: CRUDWorkloads<MySQLDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try MySQLDatabaseConfiguration(url: path)))
    }

    public func insert(_ items: [ItemData]) throws { try workloads.insert(items) }
    public func fetchAll() throws -> Checksum { try workloads.fetchAll() }
    public func lookup(_ ids: [Int64]) throws -> Checksum { try workloads.lookup(ids) }
}

/// CRUD through its public API, on the generated code of the models, for any backend.
struct CRUDWorkloads<Configuration: DatabaseConfigurationProtocol> {
    let db: Database<Configuration>
    /// Whether the concurrent workloads' tasks prefer `CRUDThreads` (else they run on Swift's pool).
    let preferringLibraryThreads: Bool

    init(_ db: Database<Configuration>, preferringLibraryThreads: Bool = false) {
        CRUDLogging.queryLogDestinations = []
        self.db = db
        self.preferringLibraryThreads = preferringLibraryThreads
    }

    /// Where the concurrent workloads' tasks run.
    private var executor: (any TaskExecutor)? { preferringLibraryThreads ? CRUDThreads.shared : nil }

    func insert(_ items: [ItemData]) throws {
        try db.table(BenchItem.self).insert(items.map(Self.item))
    }

    private static func item(_ data: ItemData) -> BenchItem {
        BenchItem(id: data.id, name: data.name, score: data.score, flag: data.flag, createdAt: data.createdAt, note: data.note)
    }

    /// One task per slice, all sharing the one `Database` and its pool, through the async API; each
    /// task keeps a prepared query, as the single-threaded lookups do.
    func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum {
        let db = self.db
        return try FromTasks.lookups(slices, executor: executor) { slice in
            var checksum = Checksum()
            let byID = try db.table(BenchItem.self).prepared(matching: \.id)
            for id in slice {
                if let item = try await byID.first(id) { Self.add(item, to: &checksum) }
            }
            return checksum
        }
    }

    /// One task per slice, each transaction of the slice through the async API.
    func concurrentInserts(_ slices: [[ItemData]]) throws {
        let db = self.db
        try FromTasks.inserts(slices, executor: executor) { chunk in
            let rows = chunk.map(Self.item)
            try await db.transaction { tx in try await tx.table(BenchItem.self).insert(rows) }
        }
    }

    static func add(_ item: BenchItem, to checksum: inout Checksum) {
        checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
    }

    /// Every row into an array (`select()`, as the README reads a query), then the checksum over it:
    /// SQLite's fetch, where every implementation builds the array.
    func fetchArray() throws -> Checksum {
        var checksum = Checksum()
        for item in try db.table(BenchItem.self).select() { Self.add(item, to: &checksum) }
        return checksum
    }

    /// Every row streamed into the checksum: the servers' fetch, whose raw baselines build no array.
    func fetchAll() throws -> Checksum {
        var checksum = Checksum()
        try db.table(BenchItem.self).forEach { Self.add($0, to: &checksum) }
        return checksum
    }

    /// Each lookup written as the articles write a one-off query: no prepared query kept.
    func chainLookup(_ ids: [Int64]) throws -> Checksum {
        var checksum = Checksum()
        for id in ids {
            if let item = try db.table(BenchItem.self).where(\BenchItem.id == id).first() { Self.add(item, to: &checksum) }
        }
        return checksum
    }

    /// A prepared query, kept as a user who repeats a lookup keeps it.
    func lookup(_ ids: [Int64]) throws -> Checksum {
        var checksum = Checksum()
        let byID = try db.table(BenchItem.self).prepared(matching: \.id)
        for id in ids {
            if let item = try byID.first(id) { Self.add(item, to: &checksum) }
        }
        return checksum
    }

    func filtered(_ thresholds: [Double]) throws -> Checksum {
        var checksum = Checksum()
        let ordered = db.table(BenchItem.self).order(by: \.score).limit(Dataset.filteredLimit)
        for threshold in thresholds {
            try ordered.where(\BenchItem.score >= threshold).forEach { Self.add($0, to: &checksum) }
        }
        return checksum
    }

    /// Each page as a list endpoint builds it: the filter from optional parts, `page` giving the
    /// rows and the total in one snapshot.
    func pages(_ requests: [PageRequest]) throws -> Checksum {
        var checksum = Checksum()
        for request in requests {
            var conditions: [CRUDBooleanExpression] = [\BenchItem.score >= request.minScore]
            if request.flaggedOnly { conditions.append(\BenchItem.flag == true) }
            let page = try db.table(BenchItem.self).order(by: \.score).where(conditions).page(request.page, size: request.size)
            for item in page.items { Self.add(item, to: &checksum) }
            checksum.add(total: page.total)
        }
        return checksum
    }

    /// Every document, its `CRUDJSON` payload decoded by the generated reader.
    func documents() throws -> Checksum {
        var checksum = Checksum()
        try db.table(BenchDocument.self).forEach { checksum.add(documentId: $0.id, payload: $0.payload.value) }
        return checksum
    }

    func parentsWithChildren() throws -> Checksum {
        var checksum = Checksum()
        try db.table(BenchParent.self).join(\.children, on: \.id, equals: \.parentId).forEach { parent in
            checksum.add(parentId: parent.id, parentName: parent.name,
                         children: (parent.children ?? []).map { ($0.id, $0.parentId, $0.name, $0.value) })
        }
        return checksum
    }
}

/// Streams every item of the SQLite file at `path` through CRUD's `forEach`, calling `sample` every
/// `every` rows (the memory workload measures the process there).
public func streamItemsThroughCRUD(path: String, every: Int, sample: () -> Void) throws -> Checksum {
    let db = Database(configuration: try SQLiteDatabaseConfiguration(path))
    var checksum = Checksum()
    try db.table(BenchItem.self).forEach { item in
        CRUDWorkloads<SQLiteDatabaseConfiguration>.add(item, to: &checksum)
        if checksum.rows % every == 0 { sample() }
    }
    return checksum
}

/// CRUD on PostgreSQL in one of the configurations beyond one server that the scaling workload
/// compares: the primary directly, through a transaction pooler, reads routed to a standby.
public final class CRUDPostgresScalingImplementation {
    private let workloads: CRUDWorkloads<PostgresDatabaseConfiguration>

    private init(_ configuration: PostgresDatabaseConfiguration) {
        workloads = CRUDWorkloads(Database(configuration: configuration))
    }

    /// The server `url` names, directly.
    public static func direct(url: String) throws -> CRUDPostgresScalingImplementation {
        CRUDPostgresScalingImplementation(try PostgresDatabaseConfiguration(url: url, pool: .init(maximumConnections: 16)))
    }

    /// A pooler in transaction mode at `url` (`transactionPooling`), or a server as if behind one.
    public static func pooled(url: String) throws -> CRUDPostgresScalingImplementation {
        CRUDPostgresScalingImplementation(try PostgresDatabaseConfiguration(url: url, pool: .init(maximumConnections: 16), transactionPooling: true))
    }

    /// Writes and transactions on the primary at `primary`, other reads on the standby at `standby`.
    public static func standbyReads(primary: String, standby: String) throws -> CRUDPostgresScalingImplementation {
        CRUDPostgresScalingImplementation(try PostgresDatabaseConfiguration(parameters: ["dbname": primary], expandDatabase: true,
                                                                            pool: .init(maximumConnections: 16),
                                                                            readParameters: ["dbname": standby]))
    }

    public func fetchAll() throws -> Checksum { try workloads.fetchAll() }
    public func lookup(_ ids: [Int64]) throws -> Checksum { try workloads.lookup(ids) }
    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try workloads.concurrentLookups(slices) }
}

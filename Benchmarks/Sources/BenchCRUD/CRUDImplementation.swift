import BenchCore
import CRUD
import CRUDPostgres
import CRUDSQLite
import Foundation

/// CRUD on SQLite.
public final class CRUDImplementation: BenchImplementation {
    private let workloads: CRUDWorkloads<SQLiteDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try SQLiteDatabaseConfiguration(path)))
    }

    public func insert(_ items: [ItemData]) throws { try workloads.insert(items) }
    public func fetchAll() throws -> Checksum { try workloads.fetchAll() }
    public func lookup(_ ids: [Int64]) throws -> Checksum { try workloads.lookup(ids) }
    public func filtered(_ thresholds: [Double]) throws -> Checksum { try workloads.filtered(thresholds) }
    public func parentsWithChildren() throws -> Checksum { try workloads.parentsWithChildren() }
}

/// CRUD on PostgreSQL; `path` is a connection URL.
public final class CRUDPostgresImplementation: BenchServerImplementation {
    private let workloads: CRUDWorkloads<PostgresDatabaseConfiguration>

    public init(path: String) throws {
        workloads = CRUDWorkloads(Database(configuration: try PostgresDatabaseConfiguration(url: path)))
    }

    public func insert(_ items: [ItemData]) throws { try workloads.insert(items) }
    public func fetchAll() throws -> Checksum { try workloads.fetchAll() }
    public func lookup(_ ids: [Int64]) throws -> Checksum { try workloads.lookup(ids) }
}

/// CRUD through its public API, on the generated code of the models, for any backend.
struct CRUDWorkloads<Configuration: DatabaseConfigurationProtocol> {
    let db: Database<Configuration>

    init(_ db: Database<Configuration>) {
        CRUDLogging.queryLogDestinations = []
        self.db = db
    }

    func insert(_ items: [ItemData]) throws {
        try db.table(BenchItem.self).insert(items.map {
            BenchItem(id: $0.id, name: $0.name, score: $0.score, flag: $0.flag, createdAt: $0.createdAt, note: $0.note)
        })
    }

    private static func add(_ item: BenchItem, to checksum: inout Checksum) {
        checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
    }

    func fetchAll() throws -> Checksum {
        var checksum = Checksum()
        try db.table(BenchItem.self).forEach { Self.add($0, to: &checksum) }
        return checksum
    }

    func lookup(_ ids: [Int64]) throws -> Checksum {
        var checksum = Checksum()
        let items = db.table(BenchItem.self)
        for id in ids {
            if let item = try items.where(\BenchItem.id == id).first() { Self.add(item, to: &checksum) }
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

    func parentsWithChildren() throws -> Checksum {
        var checksum = Checksum()
        try db.table(BenchParent.self).join(\.children, on: \.id, equals: \.parentId).forEach { parent in
            checksum.add(parentId: parent.id, parentName: parent.name,
                         children: (parent.children ?? []).map { ($0.id, $0.parentId, $0.name, $0.value) })
        }
        return checksum
    }
}

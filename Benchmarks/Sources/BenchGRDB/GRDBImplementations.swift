import BenchCore
import Foundation
import GRDB

/// GRDB's configuration with the shared pragmas.
func openQueue(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        for pragma in Schema.pragmas { try db.execute(sql: pragma) }
    }
    return try DatabaseQueue(path: path, configuration: configuration)
}

/// An items record, hand-written or Codable.
protocol BenchItemRecord: FetchableRecord, PersistableRecord {
    init(_ item: ItemData)
    var id: Int64 { get }
    var name: String { get }
    var score: Double { get }
    var flag: Bool { get }
    var createdAt: Date { get }
    var note: String? { get }
}

/// A parent record with its prefetched children, hand-written or Codable.
protocol BenchParentRecord: FetchableRecord, TableRecord {
    static var childrenRequest: QueryInterfaceRequest<Self> { get }
    var id: Int64 { get }
    var name: String { get }
    var childValues: [(id: Int64, parentId: Int64, name: String, value: Double)] { get }
}

// MARK: - Hand-written records

struct ItemRecord: BenchItemRecord {
    static let databaseTableName = "items"
    var id: Int64
    var name: String
    var score: Double
    var flag: Bool
    var createdAt: Date
    var note: String?

    init(_ item: ItemData) {
        (id, name, score, flag, createdAt, note) = (item.id, item.name, item.score, item.flag, item.createdAt, item.note)
    }

    init(row: Row) {
        id = row[0]
        name = row[1]
        score = row[2]
        flag = row[3]
        createdAt = Date(timeIntervalSince1970: row[4])
        note = row[5]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["score"] = score
        container["flag"] = flag
        container["createdAt"] = createdAt.timeIntervalSince1970
        container["note"] = note
    }
}

struct ChildRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "children"
    var id: Int64
    var parentId: Int64
    var name: String
    var value: Double

    init(row: Row) {
        id = row["id"]
        parentId = row["parentId"]
        name = row["name"]
        value = row["value"]
    }
}

struct ParentRecord: BenchParentRecord {
    static let databaseTableName = "parents"
    static let children = hasMany(ChildRecord.self, using: ForeignKey(["parentId"]))
    static var childrenRequest: QueryInterfaceRequest<Self> { including(all: children) }
    var childValues: [(id: Int64, parentId: Int64, name: String, value: Double)] { children.map { ($0.id, $0.parentId, $0.name, $0.value) } }
    var id: Int64
    var name: String
    var children: [ChildRecord]

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        children = row.prefetchedRows["children"]?.map(ChildRecord.init(row:)) ?? []
    }
}

// MARK: - Codable records

struct CodableItem: Codable, BenchItemRecord {
    static let databaseTableName = "items"
    var id: Int64
    var name: String
    var score: Double
    var flag: Bool
    var createdAt: Date
    var note: String?

    init(_ item: ItemData) {
        (id, name, score, flag, createdAt, note) = (item.id, item.name, item.score, item.flag, item.createdAt, item.note)
    }

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }
}

struct CodableChild: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "children"
    var id: Int64
    var parentId: Int64
    var name: String
    var value: Double
}

struct CodableParent: Codable, BenchParentRecord {
    static let databaseTableName = "parents"
    static let children = hasMany(CodableChild.self, using: ForeignKey(["parentId"]))
    static var childrenRequest: QueryInterfaceRequest<Self> { including(all: children) }
    var childValues: [(id: Int64, parentId: Int64, name: String, value: Double)] { children.map { ($0.id, $0.parentId, $0.name, $0.value) } }
    var id: Int64
    var name: String
    var children: [CodableChild]
}

// MARK: - Workloads

// Each workload once, generic over the records; the classes below call them with concrete types in
// this module, so GRDB's code is specialized as it would be in an application.

private func add<Item: BenchItemRecord>(_ item: Item, to checksum: inout Checksum) {
    checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
}

private func insert<Item: BenchItemRecord>(_ items: [ItemData], as: Item.Type, into queue: DatabaseQueue) throws {
    try queue.write { db in
        for item in items { try Item(item).insert(db) }
    }
}

private func fetchAll<Item: BenchItemRecord>(_ type: Item.Type, from queue: DatabaseQueue) throws -> Checksum {
    try queue.read { db in
        var checksum = Checksum()
        for item in try Item.fetchAll(db) { add(item, to: &checksum) }
        return checksum
    }
}

private func lookup<Item: BenchItemRecord>(_ ids: [Int64], _ type: Item.Type, in queue: DatabaseQueue) throws -> Checksum {
    try queue.read { db in
        var checksum = Checksum()
        for id in ids {
            if let item = try Item.fetchOne(db, key: id) { add(item, to: &checksum) }
        }
        return checksum
    }
}

private func filtered<Item: BenchItemRecord>(_ thresholds: [Double], _ type: Item.Type, in queue: DatabaseQueue) throws -> Checksum {
    try queue.read { db in
        var checksum = Checksum()
        for threshold in thresholds {
            let request = Item.filter(Column("score") >= threshold).order(Column("score")).limit(Dataset.filteredLimit)
            let cursor = try request.fetchCursor(db)
            while let item = try cursor.next() { add(item, to: &checksum) }
        }
        return checksum
    }
}

private func parentsWithChildren<Parent: BenchParentRecord>(_ type: Parent.Type, in queue: DatabaseQueue) throws -> Checksum {
    try queue.read { db in
        var checksum = Checksum()
        for parent in try Parent.childrenRequest.fetchAll(db) {
            checksum.add(parentId: parent.id, parentName: parent.name, children: parent.childValues)
        }
        return checksum
    }
}

/// GRDB with hand-written records (`init(row:)`, `encode(to:)`).
public final class GRDBRecordImplementation: BenchImplementation {
    private let queue: DatabaseQueue

    public init(path: String) throws {
        queue = try openQueue(path)
    }

    public func insert(_ items: [ItemData]) throws { try BenchGRDB.insert(items, as: ItemRecord.self, into: queue) }
    public func fetchAll() throws -> Checksum { try BenchGRDB.fetchAll(ItemRecord.self, from: queue) }
    public func lookup(_ ids: [Int64]) throws -> Checksum { try BenchGRDB.lookup(ids, ItemRecord.self, in: queue) }
    public func filtered(_ thresholds: [Double]) throws -> Checksum { try BenchGRDB.filtered(thresholds, ItemRecord.self, in: queue) }
    public func parentsWithChildren() throws -> Checksum { try BenchGRDB.parentsWithChildren(ParentRecord.self, in: queue) }
}

/// GRDB with `Codable` records: the convenience most GRDB users write.
public final class GRDBCodableImplementation: BenchImplementation {
    private let queue: DatabaseQueue

    public init(path: String) throws {
        queue = try openQueue(path)
    }

    public func insert(_ items: [ItemData]) throws { try BenchGRDB.insert(items, as: CodableItem.self, into: queue) }
    public func fetchAll() throws -> Checksum { try BenchGRDB.fetchAll(CodableItem.self, from: queue) }
    public func lookup(_ ids: [Int64]) throws -> Checksum { try BenchGRDB.lookup(ids, CodableItem.self, in: queue) }
    public func filtered(_ thresholds: [Double]) throws -> Checksum { try BenchGRDB.filtered(thresholds, CodableItem.self, in: queue) }
    public func parentsWithChildren() throws -> Checksum { try BenchGRDB.parentsWithChildren(CodableParent.self, in: queue) }
}

/// GRDB's `DatabasePool` (one writer, concurrent readers on WAL) with hand-written records, used
/// from tasks through its async API: one `read` per lookup, one `write` per transaction.
public final class GRDBPoolImplementation: BenchConcurrentImplementation {
    private let pool: DatabasePool

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            for pragma in Schema.pragmas { try db.execute(sql: pragma) }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum {
        let pool = self.pool
        return try FromTasks.lookups(slices) { slice in
            var checksum = Checksum()
            for id in slice {
                if let item = try await pool.read({ db in try ItemRecord.fetchOne(db, key: id) }) { add(item, to: &checksum) }
            }
            return checksum
        }
    }

    public func concurrentInserts(_ slices: [[ItemData]]) throws {
        let pool = self.pool
        try FromTasks.inserts(slices) { chunk in
            try await pool.write { db in
                for item in chunk { try ItemRecord(item).insert(db) }
            }
        }
    }
}

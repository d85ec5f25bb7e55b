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

// MARK: - Hand-written records

struct ItemRecord: FetchableRecord, PersistableRecord {
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

struct ParentRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "parents"
    static let children = hasMany(ChildRecord.self, using: ForeignKey(["parentId"]))
    var id: Int64
    var name: String
    var children: [ChildRecord]

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        children = row.prefetchedRows["children"]?.map(ChildRecord.init(row:)) ?? []
    }
}

private func add(_ item: ItemRecord, to checksum: inout Checksum) {
    checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
}

/// GRDB with hand-written records (`init(row:)`, `encode(to:)`).
public final class GRDBRecordImplementation: BenchImplementation {
    private let queue: DatabaseQueue

    public init(path: String) throws {
        queue = try openQueue(path)
    }

    public func insert(_ items: [ItemData]) throws {
        try queue.write { db in
            for item in items { try ItemRecord(item).insert(db) }
        }
    }

    public func fetchAll() throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            let cursor = try ItemRecord.fetchCursor(db)
            while let item = try cursor.next() { add(item, to: &checksum) }
            return checksum
        }
    }

    public func lookup(_ ids: [Int64]) throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            for id in ids {
                if let item = try ItemRecord.fetchOne(db, key: id) { add(item, to: &checksum) }
            }
            return checksum
        }
    }

    public func filtered(_ thresholds: [Double]) throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            for threshold in thresholds {
                let request = ItemRecord.filter(Column("score") >= threshold).order(Column("score")).limit(Dataset.filteredLimit)
                let cursor = try request.fetchCursor(db)
                while let item = try cursor.next() { add(item, to: &checksum) }
            }
            return checksum
        }
    }

    public func parentsWithChildren() throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            for parent in try ParentRecord.including(all: ParentRecord.children).fetchAll(db) {
                checksum.add(parentId: parent.id, parentName: parent.name, children: parent.children.map { ($0.id, $0.parentId, $0.name, $0.value) })
            }
            return checksum
        }
    }
}

// MARK: - Codable records

struct CodableItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "items"
    var id: Int64
    var name: String
    var score: Double
    var flag: Bool
    var createdAt: Date
    var note: String?

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

struct CodableParent: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "parents"
    static let children = hasMany(CodableChild.self, using: ForeignKey(["parentId"]))
    var id: Int64
    var name: String
    var children: [CodableChild]
}

private func add(_ item: CodableItem, to checksum: inout Checksum) {
    checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
}

/// GRDB with `Codable` records: the convenience most GRDB users write.
public final class GRDBCodableImplementation: BenchImplementation {
    private let queue: DatabaseQueue

    public init(path: String) throws {
        queue = try openQueue(path)
    }

    public func insert(_ items: [ItemData]) throws {
        try queue.write { db in
            for item in items {
                try CodableItem(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note).insert(db)
            }
        }
    }

    public func fetchAll() throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            let cursor = try CodableItem.fetchCursor(db)
            while let item = try cursor.next() { add(item, to: &checksum) }
            return checksum
        }
    }

    public func lookup(_ ids: [Int64]) throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            for id in ids {
                if let item = try CodableItem.fetchOne(db, key: id) { add(item, to: &checksum) }
            }
            return checksum
        }
    }

    public func filtered(_ thresholds: [Double]) throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            for threshold in thresholds {
                let request = CodableItem.filter(Column("score") >= threshold).order(Column("score")).limit(Dataset.filteredLimit)
                let cursor = try request.fetchCursor(db)
                while let item = try cursor.next() { add(item, to: &checksum) }
            }
            return checksum
        }
    }

    public func parentsWithChildren() throws -> Checksum {
        try queue.read { db in
            var checksum = Checksum()
            for parent in try CodableParent.including(all: CodableParent.children).fetchAll(db) {
                checksum.add(parentId: parent.id, parentName: parent.name, children: parent.children.map { ($0.id, $0.parentId, $0.name, $0.value) })
            }
            return checksum
        }
    }
}

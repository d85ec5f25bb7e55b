import BenchCore
import Foundation
internal import GRDBSQLite

struct RawError: Error, CustomStringConvertible {
    var description: String
}

/// A thin handle: open, exec, prepare. What a careful C programmer writes, nothing more.
final class Handle {
    let db: OpaquePointer

    init(path: String) throws {
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nil) == SQLITE_OK,
              let opened
        else { throw RawError(description: "cannot open \(path)") }
        db = opened
        // Workers with connections of their own wait for each other's write locks.
        sqlite3_busy_timeout(db, 10_000)
        for pragma in Schema.pragmas { try exec(pragma) }
    }

    deinit {
        sqlite3_close_v2(db)
    }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw RawError(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw RawError(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
        }
        return statement
    }

    func step(_ statement: OpaquePointer) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw RawError(description: String(cString: sqlite3_errmsg(db)))
        }
    }
}

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

@inline(__always)
private func text(_ statement: OpaquePointer, _ column: Int32) -> String {
    let bytes = sqlite3_column_text(statement, column)!
    return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
}

@inline(__always)
private func bindText(_ statement: OpaquePointer, _ index: Int32, _ value: String) {
    var value = value
    value.withUTF8 { bytes in
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            _ = sqlite3_bind_text64(statement, index, "", 0, transient, UInt8(SQLITE_UTF8))
            return
        }
        _ = sqlite3_bind_text64(statement, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
    }
}

/// Reads an item from columns 0…5.
@inline(__always)
private func readItem(_ statement: OpaquePointer) -> ItemData {
    ItemData(
        id: sqlite3_column_int64(statement, 0), name: text(statement, 1), score: sqlite3_column_double(statement, 2),
        flag: sqlite3_column_int64(statement, 3) != 0, createdAt: Date(timeIntervalSince1970: sqlite3_column_double(statement, 4)),
        note: sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : text(statement, 5))
}

/// Hand-written sqlite3 calls: prepared statements, binding by index, reading by index.
public final class RawImplementation: BenchImplementation, BenchConnectionPerThread {
    private let handle: Handle
    private let itemColumns = #""id", "name", "score", "flag", "createdAt", "note""#
    public let path: String

    public init(path: String) throws {
        self.path = path
        handle = try Handle(path: path)
    }

    public func insert(_ items: [ItemData]) throws {
        try handle.exec("BEGIN IMMEDIATE")
        let statement = try handle.prepare("INSERT INTO items (\(itemColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        defer { sqlite3_finalize(statement) }
        for item in items {
            sqlite3_bind_int64(statement, 1, item.id)
            bindText(statement, 2, item.name)
            sqlite3_bind_double(statement, 3, item.score)
            sqlite3_bind_int64(statement, 4, item.flag ? 1 : 0)
            sqlite3_bind_double(statement, 5, item.createdAt.timeIntervalSince1970)
            if let note = item.note { bindText(statement, 6, note) } else { sqlite3_bind_null(statement, 6) }
            _ = try handle.step(statement)
            sqlite3_reset(statement)
        }
        try handle.exec("COMMIT")
    }

    private func addItems(_ statement: OpaquePointer, to checksum: inout Checksum) throws {
        while try handle.step(statement) {
            let item = readItem(statement)
            checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
        }
    }

    /// Every row into an array, as an app holds a query's result, then the checksum over it.
    public func fetchAll() throws -> Checksum {
        let statement = try handle.prepare("SELECT \(itemColumns) FROM items")
        defer { sqlite3_finalize(statement) }
        var items: [ItemData] = []
        while try handle.step(statement) { items.append(readItem(statement)) }
        var checksum = Checksum()
        for item in items {
            checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
        }
        return checksum
    }

    /// All inside one read transaction, so SQLite's transaction start does not hide the per-query cost.
    public func lookup(_ ids: [Int64]) throws -> Checksum {
        try handle.exec("BEGIN")
        let checksum = try lookupEach(ids)
        try handle.exec("COMMIT")
        return checksum
    }

    /// Each lookup in autocommit, a read of its own (outside a transaction).
    public func lookupEach(_ ids: [Int64]) throws -> Checksum {
        let statement = try handle.prepare("SELECT \(itemColumns) FROM items WHERE id = ?1")
        defer { sqlite3_finalize(statement) }
        var checksum = Checksum()
        for id in ids {
            sqlite3_bind_int64(statement, 1, id)
            try addItems(statement, to: &checksum)
            sqlite3_reset(statement)
        }
        return checksum
    }

    public func filtered(_ thresholds: [Double]) throws -> Checksum {
        let statement = try handle.prepare("SELECT \(itemColumns) FROM items WHERE score >= ?1 ORDER BY score LIMIT ?2")
        defer { sqlite3_finalize(statement) }
        var checksum = Checksum()
        for threshold in thresholds {
            sqlite3_bind_double(statement, 1, threshold)
            sqlite3_bind_int64(statement, 2, Int64(Dataset.filteredLimit))
            try addItems(statement, to: &checksum)
            sqlite3_reset(statement)
        }
        return checksum
    }

    /// For each request, the total and the page in one read transaction, by statements prepared
    /// once for each form of the filter (with the flag, and without).
    public func pages(_ requests: [PageRequest]) throws -> Checksum {
        let filters = ["score >= ?1", "score >= ?1 AND flag = 1"]
        let counts = try filters.map { try handle.prepare("SELECT COUNT(*) FROM items WHERE \($0)") }
        let pages = try filters.map { try handle.prepare("SELECT \(itemColumns) FROM items WHERE \($0) ORDER BY score, id LIMIT ?2 OFFSET ?3") }
        defer { (counts + pages).forEach { sqlite3_finalize($0) } }
        var checksum = Checksum()
        for request in requests {
            let form = request.flaggedOnly ? 1 : 0
            try handle.exec("BEGIN DEFERRED")
            sqlite3_bind_double(counts[form], 1, request.minScore)
            guard try handle.step(counts[form]) else { throw RawError(description: "COUNT(*) gave no row") }
            checksum.add(total: Int(sqlite3_column_int64(counts[form], 0)))
            sqlite3_reset(counts[form])
            sqlite3_bind_double(pages[form], 1, request.minScore)
            sqlite3_bind_int64(pages[form], 2, Int64(request.size))
            sqlite3_bind_int64(pages[form], 3, Int64((request.page - 1) * request.size))
            try addItems(pages[form], to: &checksum)
            sqlite3_reset(pages[form])
            try handle.exec("COMMIT")
        }
        return checksum
    }

    /// The two queries CRUD runs: the children of the selected parents, grouped by parent, then the
    /// parents.
    /// Every document, its payload decoded with Foundation's `JSONDecoder` straight from SQLite's
    /// bytes: one decoder for the whole read.
    public func documents() throws -> Checksum {
        let statement = try handle.prepare(#"SELECT "id", "payload" FROM documents"#)
        defer { sqlite3_finalize(statement) }
        let decoder = JSONDecoder()
        var checksum = Checksum()
        while try handle.step(statement) {
            let bytes = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: sqlite3_column_blob(statement, 1)!),
                             count: Int(sqlite3_column_bytes(statement, 1)), deallocator: .none)
            checksum.add(documentId: sqlite3_column_int64(statement, 0), payload: try decoder.decode(DocumentPayload.self, from: bytes))
        }
        return checksum
    }

    public func parentsWithChildren() throws -> Checksum {
        typealias Child = (id: Int64, parentId: Int64, name: String, value: Double)
        // Both queries in one snapshot, as CRUD's join reads them.
        try handle.exec("BEGIN DEFERRED")
        defer { try? handle.exec("COMMIT") }
        let children = try handle.prepare(#"SELECT "id", "parentId", "name", "value" FROM children WHERE "parentId" IN (SELECT "id" FROM parents)"#)
        defer { sqlite3_finalize(children) }
        var byParent: [Int64: [Child]] = [:]
        while try handle.step(children) {
            let child = (id: sqlite3_column_int64(children, 0), parentId: sqlite3_column_int64(children, 1),
                         name: text(children, 2), value: sqlite3_column_double(children, 3))
            byParent[child.parentId, default: []].append(child)
        }
        let parents = try handle.prepare(#"SELECT "id", "name" FROM parents"#)
        defer { sqlite3_finalize(parents) }
        var checksum = Checksum()
        while try handle.step(parents) {
            let id = sqlite3_column_int64(parents, 0)
            checksum.add(parentId: id, parentName: text(parents, 1), children: byParent[id] ?? [])
        }
        return checksum
    }
}

/// Database files for the harness: made with the shared schema, filled, and checked.
public enum BenchDatabase {
    /// A new file with the schema and no rows.
    public static func create(at path: String, indexes: Bool) throws {
        try? FileManager.default.removeItem(atPath: path)
        let handle = try Handle(path: path)
        for table in Schema.tables { try handle.exec(table) }
        if indexes { for index in Schema.indexes { try handle.exec(index) } }
    }

    /// The read database: every item, and the parents with their children.
    public static func fill(at path: String, with dataset: Dataset) throws {
        try create(at: path, indexes: true)
        try RawImplementation(path: path).insert(dataset.items)
        let handle = try Handle(path: path)
        try handle.exec("BEGIN")
        let parent = try handle.prepare("INSERT INTO parents (id, name) VALUES (?1, ?2)")
        let child = try handle.prepare("INSERT INTO children (id, parentId, name, value) VALUES (?1, ?2, ?3, ?4)")
        defer {
            sqlite3_finalize(parent)
            sqlite3_finalize(child)
        }
        var childId: Int64 = 0
        for parentId in 1 ... Int64(dataset.parents) {
            sqlite3_bind_int64(parent, 1, parentId)
            bindText(parent, 2, "parent \(parentId)")
            _ = try handle.step(parent)
            sqlite3_reset(parent)
            for index in 0 ..< dataset.childrenPerParent {
                childId += 1
                sqlite3_bind_int64(child, 1, childId)
                sqlite3_bind_int64(child, 2, parentId)
                bindText(child, 3, "child \(index) of \(parentId)")
                sqlite3_bind_double(child, 4, Double(childId) / 8)
                _ = try handle.step(child)
                sqlite3_reset(child)
            }
        }
        let document = try handle.prepare("INSERT INTO documents (id, payload) VALUES (?1, ?2)")
        defer { sqlite3_finalize(document) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for id in 1 ... Int64(dataset.documents) {
            sqlite3_bind_int64(document, 1, id)
            bindText(document, 2, String(decoding: try encoder.encode(DocumentPayload.of(id)), as: UTF8.self))
            _ = try handle.step(document)
            sqlite3_reset(document)
        }
        try handle.exec("COMMIT")
    }

    /// An items table of `rows` rows made by SQLite itself, so that the process never holds them.
    public static func fillGenerated(at path: String, rows: Int) throws {
        try create(at: path, indexes: false)
        let handle = try Handle(path: path)
        let statement = try handle.prepare("""
            INSERT INTO items ("id", "name", "score", "flag", "createdAt", "note")
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
            SELECT i, 'item ' || i, i * 0.25, i % 2, 1700000000.0 + i,
                   CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || i END FROM n
            """)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, Int64(rows))
        _ = try handle.step(statement)
    }

    /// A fingerprint of the items table, computed by SQLite: equal for equal contents.
    public static func fingerprint(of path: String) throws -> Checksum {
        let handle = try Handle(path: path)
        let statement = try handle.prepare(
            #"SELECT count(*), sum(id * 31 + length(name) * 7 + unicode(substr(name, -1)) + CAST(round(score * 1000) AS INTEGER) + flag + CAST(round(createdAt * 1000) AS INTEGER) + coalesce(length(note), -1)), sum(typeof(createdAt) = 'real') FROM items"#)
        defer { sqlite3_finalize(statement) }
        guard try handle.step(statement) else { throw RawError(description: "no fingerprint") }
        let realDates = sqlite3_column_int64(statement, 2)
        let rows = Int(sqlite3_column_int64(statement, 0))
        guard realDates == rows else { throw RawError(description: "createdAt stored other than as REAL in \(path)") }
        return Checksum(rows: rows, value: sqlite3_column_int64(statement, 1))
    }
}

/// The concurrent workloads of raw sqlite3 on connections through SQLite's `unix-excl` VFS, as
/// CRUD's `exclusiveToProcess` opens them: the same C, without the file-lock system calls.
public final class RawProcessExclusiveImplementation: BenchConcurrentImplementation {
    private let raw: RawImplementation

    public init(path: String) throws {
        raw = try RawImplementation(path: "file:\(path)?vfs=unix-excl")
    }

    public func concurrentLookups(_ slices: [[Int64]]) throws -> Checksum { try raw.concurrentLookups(slices) }
    public func concurrentInserts(_ slices: [[ItemData]]) throws { try raw.concurrentInserts(slices) }
}

import BenchCore
import Foundation
internal import CLibPQBench

struct RawPostgresError: Error, CustomStringConvertible {
    var description: String
}

private let postgresEpoch: TimeInterval = 946_684_800

/// A libpq connection with the few calls the raw implementations make.
final class PGHandle {
    let connection: OpaquePointer

    init(url: String) throws {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else {
            throw RawPostgresError(description: "cannot connect to \(url)")
        }
        self.connection = connection
        try exec("SET TIME ZONE 'UTC'")
    }

    deinit {
        PQfinish(connection)
    }

    func exec(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw RawPostgresError(description: "\(String(cString: PQerrorMessage(connection))) in \(sql)")
        }
    }

    func prepare(_ name: String, _ sql: String) throws {
        let result = PQprepare(connection, name, sql, 0, nil)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw RawPostgresError(description: "\(String(cString: PQerrorMessage(connection))) in \(sql)")
        }
    }

    /// Runs a prepared statement with binary parameters; `format` 1 asks for binary results.
    func run(_ name: String, _ parameters: [[UInt8]?], format: Int32) throws -> OpaquePointer {
        var lengths = parameters.map { Int32($0?.count ?? 0) }
        var formats = [Int32](repeating: 1, count: parameters.count)
        let pointers = parameters.map { $0.map { bytes -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBytes { UnsafeMutableRawPointer(copy).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(copy), byteCount: bytes.count) }
            return copy
        } }
        defer { pointers.forEach { $0?.deallocate() } }
        let values = pointers.map { $0.map { UnsafePointer($0) } }
        guard let result = PQexecPrepared(connection, name, Int32(parameters.count), values, &lengths, &formats, format) else {
            throw RawPostgresError(description: String(cString: PQerrorMessage(connection)))
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            PQclear(result)
            throw RawPostgresError(description: String(cString: PQerrorMessage(connection)))
        }
        return result
    }
}

@inline(__always) private func big<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

private func parameters(_ item: ItemData) -> [[UInt8]?] {
    [big(item.id), Array(item.name.utf8), big(item.score.bitPattern), [item.flag ? 1 : 0],
     big(Int64(((item.createdAt.timeIntervalSince1970 - postgresEpoch) * 1_000_000).rounded())), item.note.map { Array($0.utf8) }]
}

private let columns = #""id", "name", "score", "flag", "createdAt", "note""#

/// Reads row `row` of a binary result: by index, network byte order, as a careful C programmer would.
private func binaryItem(_ result: OpaquePointer, _ row: Int32) -> ItemData {
    func value(_ column: Int32) -> UnsafeRawPointer { UnsafeRawPointer(PQgetvalue(result, row, column)!) }
    func text(_ column: Int32) -> String {
        String(decoding: UnsafeRawBufferPointer(start: value(column), count: Int(PQgetlength(result, row, column))), as: UTF8.self)
    }
    let microseconds = Int64(bigEndian: value(4).loadUnaligned(as: Int64.self))
    return ItemData(
        id: Int64(bigEndian: value(0).loadUnaligned(as: Int64.self)), name: text(1),
        score: Double(bitPattern: UInt64(bigEndian: value(2).loadUnaligned(as: UInt64.self))),
        flag: value(3).load(as: UInt8.self) != 0,
        createdAt: Date(timeIntervalSince1970: postgresEpoch + Double(microseconds) / 1_000_000),
        note: PQgetisnull(result, row, 5) == 1 ? nil : text(5))
}

/// Parses `2023-11-14 22:13:20.123456+00` (UTC sessions print timestamptz so).
private func parseTimestamp(_ text: UnsafePointer<CChar>) -> Date {
    func number(_ start: Int, _ count: Int) -> Int {
        var value = 0
        for index in start ..< start + count { value = value * 10 + Int(text[index]) - 48 }
        return value
    }
    let days = Int(daysFromCivil(year: Int64(number(0, 4)), month: Int64(number(5, 2)), day: Int64(number(8, 2))))
    var seconds = Double(days * 86_400 + number(11, 2) * 3_600 + number(14, 2) * 60 + number(17, 2))
    if text[19] == 46 {
        var fraction = 0.0, scale = 0.1, index = 20
        while text[index] >= 48 && text[index] <= 57 {
            fraction += Double(text[index] - 48) * scale
            scale /= 10
            index += 1
        }
        seconds += fraction
    }
    return Date(timeIntervalSince1970: seconds)
}

/// Reads row `row` of a text result, parsing each value.
private func textItem(_ result: OpaquePointer, _ row: Int32) -> ItemData {
    func value(_ column: Int32) -> UnsafePointer<CChar> { UnsafePointer(PQgetvalue(result, row, column)!) }
    func text(_ column: Int32) -> String { String(cString: value(column)) }
    return ItemData(
        id: strtoll(value(0), nil, 10), name: text(1), score: strtod(value(2), nil), flag: value(3).pointee == 116,
        createdAt: parseTimestamp(value(4)), note: PQgetisnull(result, row, 5) == 1 ? nil : text(5))
}

/// Hand-written libpq calls: prepared statements, binary parameters, multi-row inserts of 1,000
/// rows; results in binary or in text.
public class RawPostgresImplementation: BenchServerImplementation, BenchConnectionPerThread {
    let handle: PGHandle
    /// 1 for binary results, 0 for text.
    var resultFormat: Int32 { 1 }
    public let path: String
    /// The multi-row INSERTs prepared on this connection, by row count.
    private var preparedInserts: Set<Int> = []

    public required init(path: String) throws {
        self.path = path
        handle = try PGHandle(url: path)
    }

    fileprivate func read(_ result: OpaquePointer, _ row: Int32) -> ItemData {
        resultFormat == 1 ? binaryItem(result, row) : textItem(result, row)
    }

    public func insert(_ items: [ItemData]) throws {
        try handle.exec("BEGIN")
        var start = 0
        while start < items.count {
            let count = min(1_000, items.count - start)
            let name = "insert_\(count)"
            if preparedInserts.insert(count).inserted {
                let tuples = (0 ..< count).map { row in "(" + (1 ... 6).map { "$\(row * 6 + $0)" }.joined(separator: ", ") + ")" }
                try handle.prepare(name, "INSERT INTO items (\(columns)) VALUES \(tuples.joined(separator: ", "))")
            }
            PQclear(try handle.run(name, items[start ..< start + count].flatMap(parameters), format: 1))
            start += count
        }
        try handle.exec("COMMIT")
    }

    private func add(_ result: OpaquePointer, to checksum: inout Checksum) {
        for row in 0 ..< PQntuples(result) {
            let item = read(result, row)
            checksum.add(id: item.id, name: item.name, score: item.score, flag: item.flag, createdAt: item.createdAt, note: item.note)
        }
    }

    public func fetchAll() throws -> Checksum {
        try handle.prepare("fetch", "SELECT \(columns) FROM items")
        let result = try handle.run("fetch", [], format: resultFormat)
        defer { PQclear(result) }
        var checksum = Checksum()
        add(result, to: &checksum)
        return checksum
    }

    public func lookup(_ ids: [Int64]) throws -> Checksum {
        try handle.prepare("lookup", "SELECT \(columns) FROM items WHERE id = $1")
        var checksum = Checksum()
        for id in ids {
            let result = try handle.run("lookup", [big(id)], format: resultFormat)
            add(result, to: &checksum)
            PQclear(result)
        }
        return checksum
    }
}

/// The same calls, with results in text: the measurement behind CRUD's choice of binary.
public final class RawPostgresTextImplementation: RawPostgresImplementation {
    override var resultFormat: Int32 { 0 }
}

/// Databases for the PostgreSQL rows: a schema each, made with the shared table definition.
public enum PostgresBenchDatabase {
    /// Makes `schema` anew with an empty items table; returns the URL that works in it.
    public static func create(server: String, schema: String) throws -> String {
        let handle = try PGHandle(url: server)
        try handle.exec("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        try handle.exec("CREATE SCHEMA \(schema)")
        try handle.exec("SET search_path TO \(schema)")
        try handle.exec("""
            CREATE TABLE items ("id" bigint PRIMARY KEY, "name" text NOT NULL, "score" double precision NOT NULL,
                "flag" boolean NOT NULL, "createdAt" timestamptz NOT NULL, "note" text)
            """)
        return server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
    }

    /// A fingerprint of the items table computed by the server, equal to `Checksum` over the same rows.
    public static func fingerprint(_ url: String) throws -> Checksum {
        let handle = try PGHandle(url: url)
        try handle.prepare("fingerprint", """
            SELECT count(*), sum(id * 31 + length(name) * 7 + ascii(right(name, 1)) + round(score * 1000)::bigint
                + flag::int + round(extract(epoch FROM "createdAt") * 1000)::bigint + coalesce(length(note), -1))::bigint FROM items
            """)
        let result = try handle.run("fingerprint", [], format: 0)
        defer { PQclear(result) }
        return Checksum(rows: Int(strtoll(PQgetvalue(result, 0, 0), nil, 10)), value: strtoll(PQgetvalue(result, 0, 1), nil, 10))
    }
}

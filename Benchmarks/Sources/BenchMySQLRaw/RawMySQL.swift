import BenchCore
import Foundation
internal import CMariaDBBench

struct RawMySQLError: Error, CustomStringConvertible {
    var description: String
}

/// A Connector/C connection with the few calls the raw implementation makes.
final class MySQLHandle {
    let connection: UnsafeMutablePointer<MYSQL>

    /// Connects to `mysql://user:password@host:port/database`, in UTC and utf8mb4.
    init(url: String) throws {
        guard let parts = URLComponents(string: url), let connection = mysql_init(nil) else {
            throw RawMySQLError(description: "bad URL \(url)")
        }
        self.connection = connection
        let database = String(parts.path.dropFirst())
        guard mysql_real_connect(connection, parts.host, parts.user, parts.password, database.isEmpty ? nil : database,
                                 UInt32(parts.port ?? 3306), nil, 0) != nil else {
            let message = String(cString: mysql_error(connection))
            mysql_close(connection)
            throw RawMySQLError(description: "cannot connect to \(url): \(message)")
        }
        try exec("SET SESSION sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES'")
        try exec("SET time_zone = '+00:00'")
        try exec("SET NAMES utf8mb4 COLLATE utf8mb4_nopad_bin")
    }

    deinit {
        mysql_close(connection)
    }

    func exec(_ sql: String) throws {
        guard mysql_query(connection, sql) == 0 else {
            throw RawMySQLError(description: "\(String(cString: mysql_error(connection))) in \(sql.prefix(200))")
        }
    }

    func prepare(_ sql: String) throws -> UnsafeMutablePointer<MYSQL_STMT> {
        guard let statement = mysql_stmt_init(connection) else { throw RawMySQLError(description: "out of memory") }
        guard mysql_stmt_prepare(statement, sql, UInt(sql.utf8.count)) == 0 else {
            defer { mysql_stmt_close(statement) }
            throw RawMySQLError(description: "\(String(cString: mysql_stmt_error(statement))) in \(sql.prefix(200))")
        }
        return statement
    }
}

private func check(_ status: Int32, _ statement: UnsafeMutablePointer<MYSQL_STMT>) throws {
    guard status == 0 else { throw RawMySQLError(description: String(cString: mysql_stmt_error(statement))) }
}

/// A `Date` as `DATETIME(6)` in UTC, by the civil-from-days algorithm (Howard Hinnant's).
private func mysqlTime(_ date: Date) -> MYSQL_TIME {
    let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    var days = microseconds / 86_400_000_000
    var rest = microseconds % 86_400_000_000
    if rest < 0 {
        rest += 86_400_000_000
        days -= 1
    }
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    let seconds = rest / 1_000_000
    var time = MYSQL_TIME()
    time.year = UInt32(year)
    time.month = UInt32(month)
    time.day = UInt32(day)
    time.hour = UInt32(seconds / 3_600)
    time.minute = UInt32(seconds / 60 % 60)
    time.second = UInt32(seconds % 60)
    time.second_part = UInt(rest % 1_000_000)
    time.time_type = MYSQL_TIMESTAMP_DATETIME
    return time
}

/// A `DATETIME(6)` in UTC as a `Date`.
private func date(_ time: MYSQL_TIME) -> Date {
    let days = daysFromCivil(year: Int64(time.year), month: Int64(time.month), day: Int64(time.day))
    let seconds = days * 86_400 + Int64(time.hour) * 3_600 + Int64(time.minute) * 60 + Int64(time.second)
    return Date(timeIntervalSince1970: Double(seconds * 1_000_000 + Int64(time.second_part)) / 1_000_000)
}

private let columns = #""id", "name", "score", "flag", "createdAt", "note""#

/// The result bindings of a row of `items`, in buffers allocated once; text longer than its buffer
/// is an error (the data has none).
private final class ItemRow {
    static let textCapacity = 256
    let id = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
    let score = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    let flag = UnsafeMutablePointer<Int8>.allocate(capacity: 1)
    let createdAt = UnsafeMutablePointer<MYSQL_TIME>.allocate(capacity: 1)
    let name = UnsafeMutablePointer<UInt8>.allocate(capacity: textCapacity)
    let note = UnsafeMutablePointer<UInt8>.allocate(capacity: textCapacity)
    let lengths = UnsafeMutablePointer<UInt>.allocate(capacity: 6)
    let nulls = UnsafeMutablePointer<my_bool>.allocate(capacity: 6)
    let errors = UnsafeMutablePointer<my_bool>.allocate(capacity: 6)
    let binds = UnsafeMutablePointer<MYSQL_BIND>.allocate(capacity: 6)

    init() {
        binds.initialize(repeating: MYSQL_BIND(), count: 6)
        lengths.initialize(repeating: 0, count: 6)
        nulls.initialize(repeating: 0, count: 6)
        errors.initialize(repeating: 0, count: 6)
        let buffers: [(UnsafeMutableRawPointer, enum_field_types, Int)] = [
            (UnsafeMutableRawPointer(id), MYSQL_TYPE_LONGLONG, 8), (UnsafeMutableRawPointer(name), MYSQL_TYPE_STRING, Self.textCapacity),
            (UnsafeMutableRawPointer(score), MYSQL_TYPE_DOUBLE, 8), (UnsafeMutableRawPointer(flag), MYSQL_TYPE_TINY, 1),
            (UnsafeMutableRawPointer(createdAt), MYSQL_TYPE_DATETIME, MemoryLayout<MYSQL_TIME>.size),
            (UnsafeMutableRawPointer(note), MYSQL_TYPE_STRING, Self.textCapacity),
        ]
        for (column, (buffer, type, length)) in buffers.enumerated() {
            binds[column].buffer = buffer
            binds[column].buffer_type = type
            binds[column].buffer_length = UInt(length)
            binds[column].length = lengths + column
            binds[column].is_null = nulls + column
            binds[column].error = errors + column
        }
    }

    deinit {
        id.deallocate(); score.deallocate(); flag.deallocate(); createdAt.deallocate(); name.deallocate(); note.deallocate()
        lengths.deallocate(); nulls.deallocate(); errors.deallocate(); binds.deallocate()
    }

    func bind(_ statement: UnsafeMutablePointer<MYSQL_STMT>) throws {
        try check(Int32(mysql_stmt_bind_result(statement, binds)), statement)
    }

    /// Fetches the next row; `false` at the end.
    func fetch(_ statement: UnsafeMutablePointer<MYSQL_STMT>) throws -> Bool {
        let status = mysql_stmt_fetch(statement)
        if status == MYSQL_NO_DATA { return false }
        guard status != MYSQL_DATA_TRUNCATED else { throw RawMySQLError(description: "a text is longer than \(Self.textCapacity) bytes") }
        try check(status, statement)
        return true
    }

    func text(_ buffer: UnsafeMutablePointer<UInt8>, _ column: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: buffer, count: Int(lengths[column])), as: UTF8.self)
    }

    func add(to checksum: inout Checksum) {
        checksum.add(id: id.pointee, name: text(name, 1), score: score.pointee, flag: flag.pointee != 0, createdAt: date(createdAt.pointee),
                     note: nulls[5] != 0 ? nil : text(note, 5))
    }
}

/// Hand-written Connector/C calls: server-side prepared statements in the binary protocol, inserts
/// of 1,000 rows per statement, rows buffered on the client (`mysql_stmt_store_result`).
public final class RawMySQLImplementation: BenchServerImplementation, BenchConnectionPerThread {
    let handle: MySQLHandle
    public let path: String

    public init(path: String) throws {
        self.path = path
        handle = try MySQLHandle(url: path)
    }

    public func insert(_ items: [ItemData]) throws {
        try handle.exec("START TRANSACTION")
        var statements: [Int: UnsafeMutablePointer<MYSQL_STMT>] = [:]
        defer { statements.values.forEach { mysql_stmt_close($0) } }
        var start = 0
        while start < items.count {
            let count = min(1_000, items.count - start)
            if statements[count] == nil {
                let tuples = [String](repeating: "(?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
                statements[count] = try handle.prepare("INSERT INTO items (\(columns)) VALUES \(tuples)")
            }
            try bindAndRun(statements[count]!, items[start ..< start + count])
            start += count
        }
        try handle.exec("COMMIT")
    }

    /// Binds the rows' values (copied into buffers of this call) and executes.
    private func bindAndRun(_ statement: UnsafeMutablePointer<MYSQL_STMT>, _ rows: ArraySlice<ItemData>) throws {
        var ids = rows.map(\.id)
        var scores = rows.map(\.score)
        var flags = rows.map { Int8($0.flag ? 1 : 0) }
        var times = rows.map { mysqlTime($0.createdAt) }
        var text: [UInt8] = []
        var offsets: [(name: Int, nameLength: UInt, note: Int, noteLength: UInt)] = []
        for item in rows {
            let name = text.count
            text += item.name.utf8
            let note = text.count
            if let value = item.note { text += value.utf8 }
            offsets.append((name, UInt(note - name), note, UInt(text.count - note)))
        }
        var noteNull = rows.map { my_bool($0.note == nil ? 1 : 0) }
        var binds = [MYSQL_BIND](repeating: MYSQL_BIND(), count: rows.count * 6)
        try ids.withUnsafeMutableBufferPointer { ids in
            try scores.withUnsafeMutableBufferPointer { scores in
                try flags.withUnsafeMutableBufferPointer { flags in
                    try times.withUnsafeMutableBufferPointer { times in
                        try text.withUnsafeMutableBufferPointer { text in
                            try noteNull.withUnsafeMutableBufferPointer { noteNull in
                                for row in 0 ..< ids.count {
                                    let base = row * 6
                                    binds[base].buffer_type = MYSQL_TYPE_LONGLONG
                                    binds[base].buffer = UnsafeMutableRawPointer(ids.baseAddress! + row)
                                    binds[base + 1].buffer_type = MYSQL_TYPE_STRING
                                    binds[base + 1].buffer = UnsafeMutableRawPointer(text.baseAddress.map { $0 + offsets[row].name })
                                    binds[base + 1].buffer_length = offsets[row].nameLength
                                    binds[base + 2].buffer_type = MYSQL_TYPE_DOUBLE
                                    binds[base + 2].buffer = UnsafeMutableRawPointer(scores.baseAddress! + row)
                                    binds[base + 3].buffer_type = MYSQL_TYPE_TINY
                                    binds[base + 3].buffer = UnsafeMutableRawPointer(flags.baseAddress! + row)
                                    binds[base + 4].buffer_type = MYSQL_TYPE_DATETIME
                                    binds[base + 4].buffer = UnsafeMutableRawPointer(times.baseAddress! + row)
                                    binds[base + 5].buffer_type = MYSQL_TYPE_STRING
                                    binds[base + 5].buffer = UnsafeMutableRawPointer(text.baseAddress.map { $0 + offsets[row].note })
                                    binds[base + 5].buffer_length = offsets[row].noteLength
                                    binds[base + 5].is_null = noteNull.baseAddress! + row
                                }
                                try binds.withUnsafeMutableBufferPointer {
                                    try check(Int32(mysql_stmt_bind_param(statement, $0.baseAddress)), statement)
                                }
                                try check(mysql_stmt_execute(statement), statement)
                            }
                        }
                    }
                }
            }
        }
    }

    public func fetchAll() throws -> Checksum {
        let statement = try handle.prepare("SELECT \(columns) FROM items")
        defer { mysql_stmt_close(statement) }
        try check(mysql_stmt_execute(statement), statement)
        try check(mysql_stmt_store_result(statement), statement)
        let row = ItemRow()
        try row.bind(statement)
        var checksum = Checksum()
        while try row.fetch(statement) { row.add(to: &checksum) }
        return checksum
    }

    public func lookup(_ ids: [Int64]) throws -> Checksum {
        let statement = try handle.prepare("SELECT \(columns) FROM items WHERE id = ?")
        defer { mysql_stmt_close(statement) }
        let row = ItemRow()
        var id: Int64 = 0
        var parameter = MYSQL_BIND()
        parameter.buffer_type = MYSQL_TYPE_LONGLONG
        var checksum = Checksum()
        try withUnsafeMutablePointer(to: &id) { idPointer in
            parameter.buffer = UnsafeMutableRawPointer(idPointer)
            try check(Int32(mysql_stmt_bind_param(statement, &parameter)), statement)
            var bound = false
            for wanted in ids {
                idPointer.pointee = wanted
                try check(mysql_stmt_execute(statement), statement)
                try check(mysql_stmt_store_result(statement), statement)
                if !bound {
                    try row.bind(statement)
                    bound = true
                }
                while try row.fetch(statement) { row.add(to: &checksum) }
                mysql_stmt_free_result(statement)
            }
        }
        return checksum
    }
}

/// Databases for the MySQL rows, made with the column types CRUD's MySQL dialect gives the model.
public enum MySQLBenchDatabase {
    /// Makes `database` anew with an empty items table; returns the URL that works in it.
    public static func create(server: String, database: String) throws -> String {
        let handle = try MySQLHandle(url: server)
        try handle.exec("DROP DATABASE IF EXISTS \(database)")
        try handle.exec("CREATE DATABASE \(database)")
        try handle.exec("""
            CREATE TABLE \(database).items (id BIGINT NOT NULL PRIMARY KEY, name LONGTEXT NOT NULL, score DOUBLE NOT NULL,
                flag BOOLEAN NOT NULL, createdAt DATETIME(6) NOT NULL, note LONGTEXT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin
            """)
        return server + database
    }

    /// The checksum of every row, read by the raw implementation.
    public static func fingerprint(_ url: String) throws -> Checksum {
        try RawMySQLImplementation(path: url).fetchAll()
    }
}

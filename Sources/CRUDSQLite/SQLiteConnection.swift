import CRUD
import CSQLite
import Foundation

/// One open SQLite database handle with its cache of prepared statements.
public final class SQLiteConnection: CRUDConnection {
    public typealias Statement = SQLiteStatement

    /// The most statements kept prepared; past it the least recently prepared are finalized.
    static let cacheCapacity = 128

    let handle: OpaquePointer
    /// The path the database was opened with, for error messages.
    public let path: String
    public let dialect: any CRUDDialect = SQLiteDialect()
    public var transactionDepth = 0
    private var cache = CRUDStatementCache<SQLiteStatement>(capacity: cacheCapacity)

    init(path: String, busyTimeout: Duration) throws {
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw CRUDSQLExeError("cannot open SQLite database at \(path): \(message)", code: "\(status)", databaseMessage: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        let milliseconds = busyTimeout.components.seconds * 1_000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        do {
            // Reading the schema first makes a file that is not a database fail here, with its path.
            try execute("SELECT count(*) FROM sqlite_master")
            try execute("PRAGMA journal_mode = WAL")
            try execute("PRAGMA synchronous = NORMAL")
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA case_sensitive_like = ON")
        } catch let error as CRUDSQLExeError where error.code == "\(SQLITE_READONLY)" {
            // A read-only file can still be read; writes will fail with a clear error.
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    deinit {
        for statement in cache.removeAll() { statement.finalize() }
        sqlite3_close_v2(handle)
    }

    /// The error for a failed call, with SQLite's own code and message and the database path.
    func error(_ status: Int32, sql: String?) -> CRUDSQLExeError {
        let message = String(cString: sqlite3_errmsg(handle))
        let name = String(cString: sqlite3_errstr(status))
        return CRUDSQLExeError("SQLite error \(status) (\(name)) in \(path): \(message)", sql: sql, code: "\(status)", databaseMessage: message)
    }

    public var transactionStatus: CRUDTransactionStatus {
        sqlite3_get_autocommit(handle) == 0 ? .open : .none
    }

    public func prepare(_ sql: String) throws -> SQLiteStatement {
        if let cached = cache.checkOut(sql) { return cached }
        var prepared: OpaquePointer?
        var rest = ""
        let status = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let status = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, &tail)
            if status == SQLITE_OK, let tail, tail.pointee != 0 { rest = String(cString: tail) }
            return status
        }
        guard status == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw error(status, sql: sql)
        }
        // SQLite prepares only the first statement of a text; running it alone would silently skip
        // the rest, so more than one statement is an error, as it is in PostgreSQL.
        if containsStatement(rest) {
            sqlite3_finalize(prepared)
            throw CRUDSQLExeError("SQLite error in \(path): the SQL holds more than one statement; one call runs one statement, so run "
                + "\"\(rest.trimmingCharacters(in: .whitespacesAndNewlines))\" with a call of its own", sql: sql)
        }
        let statement = SQLiteStatement(handle: prepared, connection: self, sql: sql)
        cache.add(statement, for: sql).evicted?.finalize()
        return statement
    }

    /// Whether `text` holds a statement, not just white space, semicolons and comments.
    private func containsStatement(_ text: String) -> Bool {
        guard text.contains(where: { !$0.isWhitespace && $0 != ";" }) else { return false }
        var next: OpaquePointer?
        var rest: UnsafePointer<CChar>?
        return text.withCString { remaining in
            var remaining = remaining
            while remaining.pointee != 0 {
                guard sqlite3_prepare_v2(handle, remaining, -1, &next, &rest) == SQLITE_OK else { return true }
                if next != nil {
                    sqlite3_finalize(next)
                    return true
                }
                guard let rest, rest != remaining else { return false }
                remaining = rest
            }
            return false
        }
    }

    public func release(_ statement: SQLiteStatement) {
        statement.clear()
        if !cache.checkIn(statement) { statement.finalize() }
    }

    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if let message { sqlite3_free(message) }
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
    }

    public func lastInsertId() throws -> Int? {
        Int(sqlite3_last_insert_rowid(handle))
    }

    public func columnNames(ofTable table: String) throws -> [String]? {
        let exists = try prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1")
        defer { release(exists) }
        try exists.bindText(table, at: 0)
        guard try exists.step() else { return nil }
        let columns = try prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
        defer { release(columns) }
        try columns.bindText(table, at: 0)
        var names: [String] = []
        while try columns.step() { names.append(try columns.readText(0)) }
        return names
    }
}

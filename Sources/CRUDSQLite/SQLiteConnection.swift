@_spi(CRUDDriver) import CRUD
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
    /// An SQLite connection is not lost while it is open.
    @_spi(CRUDDriver) public let isUsable = true

    @_spi(CRUDDriver) public func reconnect() throws {}

    /// Asks the statement running on this connection to stop: the progress handler, which SQLite
    /// calls every thousand virtual-machine steps of a running statement, makes it fail with
    /// `SQLITE_INTERRUPT` until `interruptEnded()`. Not `sqlite3_interrupt`, which stops every active
    /// statement of the connection and stays in force until none is active: a stream's statement,
    /// open in the same transaction as the cancelled call, would fail at its next row.
    @_spi(CRUDDriver) public func interrupt() {
        interruptRequest.isRequested = true
    }

    @_spi(CRUDDriver) public func interruptEnded() {
        interruptRequest.isRequested = false
        interruptRequest.watchesTask = false
    }

    /// SQLite reads and writes a file: an async call runs its statements on its own thread.
    @_spi(CRUDDriver) public let runsOnCallersThread = true

    /// How many times the progress handler (every thousand virtual-machine steps) lets a bounded
    /// call's statements go on: about 50,000 steps. Measured with a handler on every step: a point
    /// lookup by key takes 10, a `LIKE` scan 4.3 a row and 0.48 ms per 50,000.
    static let boundedWorkBudget = 50

    @_spi(CRUDDriver) public func beginCallersWork(bounded: Bool) {
        interruptRequest.watchesTask = true
        if bounded { interruptRequest.budget = Self.boundedWorkBudget }
    }

    @_spi(CRUDDriver) public func endCallersWork() -> Bool {
        defer {
            interruptRequest.watchesTask = false
            interruptRequest.budget = -1
            interruptRequest.ranPastBudget = false
        }
        return interruptRequest.ranPastBudget
    }

    /// Whether the running statement must stop (`interrupt()`), read by the progress handler.
    private let interruptRequest = InterruptRequest()
    /// Where the update hook records changes (the hook's context is the connection, unretained).
    var changeRecorder: CRUDChangeRecorder?
    /// The table a DROP TABLE being prepared drops, while the change hook's authorizer runs
    /// (`reportChanges`): its implicit DELETE of the rows must be allowed, or the DROP does nothing.
    var droppingTable: String?
    var cache = CRUDStatementCache<SQLiteStatement>(capacity: cacheCapacity)
    /// What opening ran, for the session's query log.
    private var openingStatements: [String] = []

    /// SQLite's VFS that locks a database file against other processes at its first use and keeps
    /// the write-ahead-log index in this process's memory (`exclusiveToProcess`).
    static let processExclusiveVFS = "unix-excl"

    /// Opens the database at `path` through `vfs` (SQLite's default when `nil`). A reader
    /// (`queryOnly`) refuses to write, so that a write routed to it by mistake fails instead of
    /// competing with the writer.
    init(path: String, busyTimeout: Duration, queryOnly: Bool = false, vfs: String? = nil) throws {
        self.path = path
        var opened = try Self.open(path, readOnly: false, busyTimeout: busyTimeout, vfs: vfs)
        var ran: [String] = []
        do {
            // Reading the schema first makes a file that is not a database fail here, with its path.
            for setting in ["SELECT count(*) FROM sqlite_master", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL",
                            "PRAGMA foreign_keys = ON", "PRAGMA case_sensitive_like = ON"] + (queryOnly ? ["PRAGMA query_only = ON"] : []) {
                ran.append(setting)
                try Self.execute(setting, on: opened, path: path)
            }
        } catch let error as CRUDSQLExeError where vfs != nil && sqlite3_errcode(opened) & 0xff == SQLITE_BUSY {
            sqlite3_close_v2(opened)
            // The lock that unix-excl takes at the first read, refused: another process has the file.
            throw CRUDSQLExeError("cannot open SQLite database at \(path) exclusiveToProcess: another process has it open "
                                  + "(\(error.databaseMessage ?? "database is locked")); close that process's connections, or open it "
                                  + "without exclusiveToProcess", code: error.code, databaseMessage: error.databaseMessage, kind: error.kind)
        } catch where sqlite3_errcode(opened) & 0xff == SQLITE_READONLY {
            // A file, or a WAL database's directory, that this process may not write (every extended
            // READONLY code): a read-only connection can still read it, and writes fail with SQLite's
            // "attempt to write a readonly database". Where the directory keeps SQLite from creating
            // the WAL's -shm file, only an immutable connection can read: nobody without write access
            // there can change the database in WAL mode either.
            // SQLITE_READONLY_DIRECTORY, a macro Swift does not import.
            let directoryReadOnly = sqlite3_extended_errcode(opened) == SQLITE_READONLY | (6 << 8)
            sqlite3_close_v2(opened)
            opened = try Self.open(directoryReadOnly ? Self.immutableURI(path) : path, readOnly: true, busyTimeout: busyTimeout, vfs: vfs)
            do {
                for setting in ["SELECT count(*) FROM sqlite_master", "PRAGMA foreign_keys = ON", "PRAGMA case_sensitive_like = ON"] {
                    ran.append(setting)
                    try Self.execute(setting, on: opened, path: path)
                }
            } catch {
                sqlite3_close_v2(opened)
                throw error
            }
        } catch {
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
        openingStatements = ran
        // The request lives as long as the connection, which closes the handle in its deinit.
        sqlite3_progress_handler(opened, 1_000, { request in
            Unmanaged<InterruptRequest>.fromOpaque(request!).takeUnretainedValue().mustStop ? 1 : 0
        }, Unmanaged.passUnretained(interruptRequest).toOpaque())
    }

    @_spi(CRUDDriver) public func takeOpeningStatements() -> [String] {
        defer { openingStatements = [] }
        return openingStatements
    }

    /// `path` as a `file:` URI with `immutable=1`.
    private static func immutableURI(_ path: String) -> String {
        if path.hasPrefix("file:") { return path + (path.contains("?") ? "&" : "?") + "immutable=1" }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
    }

    private static func open(_ path: String, readOnly: Bool, busyTimeout: Duration, vfs: String?) throws -> OpaquePointer {
        var opened: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let status = sqlite3_open_v2(path, &opened, access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, vfs)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw CRUDSQLExeError("cannot open SQLite database at \(path): \(message)", code: "\(status)", databaseMessage: message)
        }
        sqlite3_extended_result_codes(opened, 1)
        // A misspelt column in raw SQL is an error, not the string "misspelt" (SQLite's legacy
        // double-quoted strings); schemas that already hold such strings still load (DDL is left be).
        _ = crud_sqlite3_refuse_double_quoted_strings(opened)
        let milliseconds = busyTimeout.components.seconds * 1_000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(opened, Int32(clamping: milliseconds))
        return opened
    }

    deinit {
        for statement in cache.removeAll() { statement.finalize() }
        sqlite3_close_v2(handle)
    }

    /// The error for a failed call, with SQLite's own code and message and the database path.
    func error(_ status: Int32, sql: String?) -> CRUDSQLExeError {
        // Seen only by the statement's span and the query log: the call runs the read again.
        let budget = status & 0xff == SQLITE_INTERRUPT && interruptRequest.ranPastBudget
        return Self.error(status, on: handle, path: path, sql: sql,
                          note: budget ? "stopped past the budget of a call on its caller's thread, to run again on the connection's own" : nil)
    }

    private static func error(_ status: Int32, on handle: OpaquePointer, path: String, sql: String?, note: String? = nil) -> CRUDSQLExeError {
        let message = String(cString: sqlite3_errmsg(handle))
        let name = String(cString: sqlite3_errstr(status))
        let violation = SQLiteFailure(status: status, message: message, sql: sql)
        var text = "SQLite error \(status) (\(name)) in \(path): \(message)"
        if let note { text += "; " + note }
        if violation.kind == .foreignKeyViolation, let table = violation.table { text += " (writing table \"\(table)\")" }
        return CRUDSQLExeError(text, sql: sql, code: "\(status)", databaseMessage: message,
                               kind: violation.kind, constraint: violation.constraint, table: violation.table)
    }

    @_spi(CRUDDriver) public var transactionStatus: CRUDTransactionStatus {
        sqlite3_get_autocommit(handle) == 0 ? .open : .none
    }

    @_spi(CRUDDriver) public func prepare(_ sql: String) throws -> SQLiteStatement {
        if let cached = cache.checkOut(sql) { return cached }
        let statement = try prepareOwned(sql)
        cache.add(statement, for: sql).evicted?.finalize()
        return statement
    }

    public func prepareOwned(_ sql: String) throws -> SQLiteStatement {
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
        return SQLiteStatement(handle: prepared, connection: self, sql: sql)
    }

    public func discard(_ statement: SQLiteStatement) {
        statement.finalize()
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

    @_spi(CRUDDriver) public func release(_ statement: SQLiteStatement) {
        statement.clear()
        if !cache.checkIn(statement) { statement.finalize() }
    }

    @_spi(CRUDDriver) public func execute(_ sql: String) throws {
        try Self.execute(sql, on: handle, path: path)
    }

    private static func execute(_ sql: String, on handle: OpaquePointer, path: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if let message { sqlite3_free(message) }
        guard status == SQLITE_OK else { throw error(status, on: handle, path: path, sql: sql) }
    }

    /// `sqlite3_last_insert_rowid`: a C call, no statement.
    @_spi(CRUDDriver) public func lastInsertId(using runner: some CRUDCatalogRunner<Statement>) throws -> Int? {
        Int(sqlite3_last_insert_rowid(handle))
    }

    @_spi(CRUDDriver) public func columns(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [CRUDDatabaseColumn]? {
        guard try runner.hasRow("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", [.text(table)]) else { return nil }
        var columns: [CRUDDatabaseColumn] = []
        try runner.forEachRow("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid", [.text(table)]) { info in
            columns.append(CRUDDatabaseColumn(name: try info.readText(0), declaredType: try info.readText(1),
                                              isNullable: try info.readInt64(2) == 0, isPrimaryKey: try info.readInt64(3) > 0))
        }
        return columns
    }
}

/// Whether a connection's running statement must stop: asked by another thread (`isRequested`), by
/// the cancellation of the task whose call runs it on its own thread, or past the budget of a
/// bounded call. `@unchecked Sendable`: `requested` is guarded by `lock` (set by the thread that
/// cancels, read by the one running the statement); `watchesTask`, `budget` and `ranPastBudget` are
/// used only by the thread that uses the connection, the progress handler's.
private final class InterruptRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false
    /// Whether the statements run in an async call's task, on its thread, and stop once it is
    /// cancelled: the call installs no cancellation handler (whose record makes every executor hop
    /// of the task take its status lock), so its statements look for themselves.
    var watchesTask = false
    /// How many more calls of the progress handler a bounded call's statements may take; -1 unbounded.
    var budget = -1
    /// Whether the budget stopped a statement.
    var ranPastBudget = false

    var isRequested: Bool {
        get { lock.withLock { requested } }
        set { lock.withLock { requested = newValue } }
    }

    /// Asked by the progress handler: whether the running statement must stop now.
    var mustStop: Bool {
        if isRequested || watchesTask && Task.isCancelled { return true }
        guard budget >= 0 else { return false }
        if budget == 0 {
            ranPastBudget = true
            return true
        }
        budget -= 1
        return false
    }
}

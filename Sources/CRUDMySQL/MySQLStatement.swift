#if MySQL
import CMariaDB
@_spi(CRUDDriver) import CRUD
import Foundation

/// A server-side prepared statement (`mysql_stmt_*`): parameters travel in the binary protocol
/// and rows come back in it, buffered on the client as libpq does. Each read checks the column's
/// type, so nothing is converted silently.
public final class MySQLStatement: CRUDStatement {
    private unowned let connection: MySQLConnection
    let handle: UnsafeMutablePointer<MYSQL_STMT>
    @_spi(CRUDDriver) public let sql: String

    private let parameters: MySQLBindings
    private var results: MySQLBindings
    /// The result's columns as the server describes them; empty for a statement without rows.
    private var fields: UnsafeMutablePointer<MYSQL_FIELD>?
    private var metadata: UnsafeMutablePointer<MYSQL_RES>?
    private var executed = false
    /// How long after its first deadlock a statement outside a transaction is still run again: a
    /// time, not a count, since a statement that lost to another Galera node's commit of the same
    /// row loses its next run about as often whatever it waited (the other node goes on committing).
    static let deadlockRetryTime = Duration.seconds(2)
    /// Whether the statement is an INSERT, whose ids the connection keeps for `lastInsertId`.
    private let isInsert: Bool
    /// Whether it writes rows, so that the rows it returns (`… RETURNING`) are the rows it changed.
    private let isWrite: Bool
    private var affected = 0

    /// Prepares `sql` on `connection`.
    convenience init(connection: MySQLConnection, sql: String) throws {
        let (handle, text) = try Self.unprepared(connection, sql)
        guard mysql_stmt_prepare(handle, text, UInt(text.count)) == 0 else { throw Self.failedPreparing(handle, connection, sql) }
        self.init(connection: connection, sql: sql, prepared: handle)
    }

    /// Prepares `sql` on `connection` without blocking (`mysql_stmt_prepare_start`/`_cont`), waiting
    /// on the event loop.
    static nonisolated(nonsending) func preparing(_ sql: String, on connection: MySQLConnection) async throws -> MySQLStatement {
        let (handle, text) = try unprepared(connection, sql)
        var failed: Int32 = 0
        do {
            var status = mysql_stmt_prepare_start(&failed, handle, text, UInt(text.count))
            while status != 0 { status = mysql_stmt_prepare_cont(&failed, handle, try await connection.awaitSocket(status)) }
            // Connector/C reads the text until the call ends, past `_start`: a text longer than its
            // buffer is sent from `text` itself, in `_cont` calls when the socket is full.
            withExtendedLifetime(text) {}
        } catch {
            mysql_stmt_close(handle)
            throw error
        }
        guard failed == 0 else { throw failedPreparing(handle, connection, sql) }
        return MySQLStatement(connection: connection, sql: sql, prepared: handle)
    }

    /// A statement handle for `sql`, not prepared yet, and the text to prepare.
    private static func unprepared(_ connection: MySQLConnection, _ sql: String) throws -> (UnsafeMutablePointer<MYSQL_STMT>, [UInt8]) {
        let text = Array(sql.utf8)
        if text.count + 64 > connection.maxAllowedPacket { throw connection.packetTooLarge(bytes: text.count + 64, sql: sql) }
        guard let handle = mysql_stmt_init(connection.handle) else {
            throw CRUDSQLExeError("MySQL: out of memory preparing a statement", sql: sql)
        }
        return (handle, text)
    }

    /// The error of a statement the server would not prepare, whose handle it closes.
    private static func failedPreparing(_ handle: UnsafeMutablePointer<MYSQL_STMT>, _ connection: MySQLConnection, _ sql: String) -> CRUDSQLExeError {
        let error = connection.error(statement: handle, sql: sql)
        mysql_stmt_close(handle)
        return error
    }

    private init(connection: MySQLConnection, sql: String, prepared handle: UnsafeMutablePointer<MYSQL_STMT>) {
        self.connection = connection
        self.sql = sql
        self.handle = handle
        let verb = sql.prefix(7).uppercased()
        isInsert = verb.hasPrefix("INSERT")
        isWrite = ["INSERT", "DELETE", "UPDATE", "REPLACE"].contains { verb.hasPrefix($0) }
        parameters = MySQLBindings(count: Int(mysql_stmt_param_count(handle)))
        results = MySQLBindings(count: 0)
        describeResult()
    }

    /// Reads the result's columns from the server's description and sets up their bindings. An
    /// `INSERT … RETURNING` has its columns described only once it ran.
    private func describeResult() {
        if let metadata { mysql_free_result(metadata) }
        metadata = mysql_stmt_result_metadata(handle)
        let fieldCount = metadata.map { Int(mysql_num_fields($0)) } ?? 0
        fields = metadata.flatMap { mysql_fetch_fields($0) }
        results = MySQLBindings(count: fieldCount)
        for column in 0 ..< fieldCount {
            results.prepareResult(column, for: fields![column])
        }
    }

    deinit {
        if let metadata { mysql_free_result(metadata) }
        mysql_stmt_close(handle)
    }

    /// Back to no parameters and no result, ready for the next user.
    func clear() {
        if executed { mysql_stmt_free_result(handle) }
        executed = false
        affected = 0
        parameters.clearParameters()
    }

    // MARK: - Running

    public func step() throws -> Bool {
        if !executed { try execute() }
        guard results.count > 0 else { return false }
        switch mysql_stmt_fetch(handle) {
        case 0:
            return true
        case MYSQL_NO_DATA:
            return false
        case MYSQL_DATA_TRUNCATED:
            try fetchTruncated()
            return true
        default:
            throw failedWithResult()
        }
    }

    /// The error of a statement that failed after the server described its result (a duplicate key
    /// in `INSERT … RETURNING` comes after the columns): Connector/C would wait at the next execute
    /// for the rest of a result that never comes, so the statement is reset first.
    private func failedWithResult() -> CRUDSQLExeError {
        let error = connection.error(statement: handle, sql: sql)
        _ = mysql_stmt_reset(handle)
        executed = false
        return error
    }

    private func execute() throws {
        let alone = try bindParameters()
        var attempt = 0
        var deadline: ContinuousClock.Instant?
        while mysql_stmt_execute(handle) != 0 {
            attempt = try retry(after: attempt, alone: alone, until: &deadline)
            usleep(UInt32(Self.pauseMicroseconds(before: attempt)))
        }
        if attempt > 0 { logRetried(runs: attempt + 1, succeeded: true) }
        guard executedHasRows() else { return }
        try storedRows(mysql_stmt_store_result(handle) == 0)
    }

    /// `execute()` without blocking a thread: Connector/C's non-blocking calls
    /// (`mysql_stmt_execute_start`/`_cont`, `mysql_stmt_store_result_start`/`_cont`), waiting on the
    /// event loop for what each asks (`MySQLConnection.awaitSocket`).
    nonisolated(nonsending) func executeWithoutBlocking() async throws {
        let alone = try bindParameters()
        let handle = handle
        var attempt = 0
        var deadline: ContinuousClock.Instant?
        while true {
            var (status, failed) = Self.step { mysql_stmt_execute_start($0, handle) }
            while status != 0 {
                let ready = try await connection.awaitSocket(status)
                (status, failed) = Self.step { mysql_stmt_execute_cont($0, handle, ready) }
            }
            if !failed { break }
            attempt = try retry(after: attempt, alone: alone, until: &deadline)
            try await Self.pause(before: attempt)
        }
        if attempt > 0 { logRetried(runs: attempt + 1, succeeded: true) }
        guard executedHasRows() else { return }
        var (status, failed) = Self.step { mysql_stmt_store_result_start($0, handle) }
        while status != 0 {
            let ready = try await connection.awaitSocket(status)
            (status, failed) = Self.step { mysql_stmt_store_result_cont($0, handle, ready) }
        }
        try storedRows(!failed)
    }

    /// One step of a non-blocking call (its `_start` or a `_cont`): what it waits for next (0 once
    /// done), and whether it failed. The flag it writes is a local here, not in the async caller,
    /// where a local whose address C takes costs a block the task allocates at every step.
    @inline(__always)
    private static func step(_ call: (UnsafeMutablePointer<Int32>) -> Int32) -> (status: Int32, failed: Bool) {
        var failed: Int32 = 0
        let status = call(&failed)
        return (status, failed != 0)
    }

    /// The pause before attempt `attempt` runs, out of the statement's path.
    @inline(never)
    private static nonisolated(nonsending) func pause(before attempt: Int) async throws {
        try await Task.sleep(for: .microseconds(pauseMicroseconds(before: attempt)))
    }

    /// Binds the parameters for a run; whether the statement runs outside a transaction.
    private func bindParameters() throws -> Bool {
        if parameters.count > 0 {
            if let unset = parameters.firstUnset {
                throw CRUDEncoderError("parameter \(unset + 1) of a MySQL statement has no value bound (\(sql))")
            }
            guard mysql_stmt_bind_param(handle, parameters.binds) == 0 else { throw connection.error(statement: handle, sql: sql) }
            // Sent anyway, the server would drop the connection with nothing said of the size.
            let bytes = parameters.packetBytes
            if bytes > connection.maxAllowedPacket { throw connection.packetTooLarge(bytes: bytes, sql: sql) }
        }
        return connection.transactionStatus == .none
    }

    /// How long to wait before attempt `attempt` (from 1), in microseconds: doubling from 1 ms up to 64 ms, each
    /// between half and one and a half of that at random, so that statements that keep meeting
    /// (a hot row written through several Galera nodes) stop meeting in step.
    static func pauseMicroseconds(before attempt: Int) -> Int {
        Int(Double(1_000 << min(attempt - 1, 6)) * Double.random(in: 0.5 ... 1.5))
    }

    /// After a failed run: the next attempt's number, or the error. A deadlock rolls back the
    /// transaction; outside one that is this statement alone, which InnoDB asks to run again (its
    /// gap locks make concurrent writes of other rows deadlock), as does a Galera cluster whose
    /// certification refused it for another node's write; for `deadlockRetryTime` after the first
    /// failure (`deadline`, set then).
    private func retry(after attempt: Int, alone: Bool, until deadline: inout ContinuousClock.Instant?) throws -> Int {
        guard alone, mysql_stmt_errno(handle) == UInt32(ER_LOCK_DEADLOCK) else { throw connection.error(statement: handle, sql: sql) }
        let now = ContinuousClock.now
        let end = deadline ?? now + Self.deadlockRetryTime
        deadline = end
        guard now < end else {
            let error = connection.error(statement: handle, sql: sql)
            logRetried(runs: attempt + 1, succeeded: false)
            throw error
        }
        return attempt + 1
    }

    /// Says that the statement was run again after deadlocks (Galera's certification conflicts
    /// among them): what the library handles itself is logged, once a statement, at warning.
    @inline(never)
    private func logRetried(runs: Int, succeeded: Bool) {
        let outcome = succeeded ? "succeeded on run \(runs)" : "still failed on run \(runs), after \(Self.deadlockRetryTime) of runs, and its error is thrown"
        CRUDLogging.log(.warning, "a statement outside a transaction lost to a deadlock or a Galera certification conflict (MySQL error 1213) "
            + "and was run again: it \(outcome) (\(sql))")
    }

    /// After a successful run: whether it returned rows, which are then stored on the client
    /// (`storedRows`); for one without, what it changed is noted.
    private func executedHasRows() -> Bool {
        executed = true
        if Int(mysql_stmt_field_count(handle)) != results.count { describeResult() }
        guard results.count == 0 else { return true }
        affected = Int(truncatingIfNeeded: mysql_stmt_affected_rows(handle))
        if isInsert { connection.noteInsert(mysql_stmt_insert_id(handle), rows: affected) }
        return false
    }

    /// After the rows were stored on the client (`stored`, or the store failed): binds them for reading.
    private func storedRows(_ stored: Bool) throws {
        guard stored, mysql_stmt_bind_result(handle, results.binds) == 0 else { throw failedWithResult() }
        let rows = Int(truncatingIfNeeded: mysql_stmt_num_rows(handle))
        // Connector/C reports no affected rows for a write that returns them (DELETE … RETURNING),
        // and no insert id (INSERT … RETURNING): each row it returns is one it wrote.
        if isWrite { affected = rows }
        if isInsert { connection.noteInsert(nil, rows: rows) }
    }

    /// A text or bytes value longer than its buffer: the buffer grows, and the value is fetched
    /// again whole.
    private func fetchTruncated() throws {
        var grew = false
        for column in 0 ..< results.count where results.needsLargerBuffer(column) {
            results.grow(column)
            grew = true
            guard mysql_stmt_fetch_column(handle, results.binds + column, UInt32(column), 0) == 0 else {
                throw connection.error(statement: handle, sql: sql)
            }
        }
        if grew { _ = mysql_stmt_bind_result(handle, results.binds) }
    }

    public func reset() throws {
        clear()
    }

    public var changedRows: Int { affected }

    @_spi(CRUDDriver) public var resultColumnCount: Int { results.count }

    @_spi(CRUDDriver) public func resultColumnName(_ column: Int) -> String {
        guard let fields, column < results.count else { return "" }
        return String(cString: fields[column].name)
    }

    // MARK: - Binding

    public func bindNull(at position: Int) throws {
        try parameters.set(checked(position), type: MYSQL_TYPE_NULL) { _ in 0 }
    }

    public func bindInt64(_ value: Int64, at position: Int) throws {
        try parameters.set(checked(position), type: MYSQL_TYPE_LONGLONG) { $0.storeBytes(of: value, as: Int64.self); return 8 }
    }

    /// - Throws: `CRUDEncoderError` for an infinity or NaN, which MySQL's DOUBLE does not hold.
    public func bindReal(_ value: Double, at position: Int) throws {
        guard value.isFinite else {
            throw CRUDEncoderError("MySQL and MariaDB store no infinity or NaN in a DOUBLE, and \(value) is bound at parameter \(position + 1) (\(sql))")
        }
        try parameters.set(checked(position), type: MYSQL_TYPE_DOUBLE) { $0.storeBytes(of: value, as: Double.self); return 8 }
    }

    public func bindBool(_ value: Bool, at position: Int) throws {
        try parameters.set(checked(position), type: MYSQL_TYPE_TINY) { $0.storeBytes(of: Int8(value ? 1 : 0), as: Int8.self); return 1 }
    }

    public func bindText(_ value: String, at position: Int) throws {
        var value = value
        try value.withUTF8 { try parameters.setBytes(checked(position), type: MYSQL_TYPE_STRING, UnsafeRawBufferPointer($0)) }
    }

    public func bindBlob(_ value: [UInt8], at position: Int) throws {
        try value.withUnsafeBytes { try parameters.setBytes(checked(position), type: MYSQL_TYPE_BLOB, $0) }
    }

    public func bindData(_ value: Data, at position: Int) throws {
        try value.withUnsafeBytes { try parameters.setBytes(checked(position), type: MYSQL_TYPE_BLOB, $0) }
    }

    /// A `Date` as a UTC `DATETIME(6)`: the session's time zone is UTC, so the server converts
    /// nothing; microseconds are kept, finer parts rounded.
    public func bindDate(_ value: Date, at position: Int) throws {
        guard let time = MySQLTime(value) else {
            throw CRUDEncoderError("\(value) is outside the years 1000-9999 that MySQL's DATETIME holds (parameter \(position + 1) of \(sql))")
        }
        try parameters.set(checked(position), type: MYSQL_TYPE_DATETIME) {
            $0.storeBytes(of: time.value, as: MYSQL_TIME.self)
            return UInt(MemoryLayout<MYSQL_TIME>.size)
        }
    }

    /// A UUID as its 16 bytes, for a `BINARY(16)` column.
    public func bindUUID(_ value: UUID, at position: Int) throws {
        try withUnsafeBytes(of: value.uuid) { try parameters.setBytes(checked(position), type: MYSQL_TYPE_BLOB, $0) }
    }

    private func checked(_ position: Int) throws -> Int {
        guard position >= 0, position < parameters.count else {
            throw CRUDEncoderError("parameter \(position + 1) does not exist: the statement has \(parameters.count) (\(sql))")
        }
        return position
    }

    // MARK: - Reading

    public func isNull(_ column: Int) -> Bool {
        results.isNull(column)
    }

    public func readInt64(_ column: Int) throws -> Int64 {
        guard !isNull(column) else { throw wrongType(column, expected: "an integer") }
        switch results.kind(column) {
        case .integer:
            let value = results.integer(column)
            if results.isUnsigned(column), value < 0 {
                throw decodingError(column, "\(UInt64(bitPattern: value)) is larger than the largest Int64")
            }
            return value
        case .decimal:
            // SUM and AVG of integers are DECIMAL in MySQL; a whole one reads as an integer.
            let text = results.text(column)
            guard let value = Int64(text) else { throw decodingError(column, "the decimal \(text) is not a whole Int64") }
            return value
        default:
            throw wrongType(column, expected: "an integer")
        }
    }

    public func readReal(_ column: Int) throws -> Double {
        guard !isNull(column) else { throw wrongType(column, expected: "a number") }
        switch results.kind(column) {
        case .double: return results.double(column)
        case .integer: return results.isUnsigned(column) ? Double(UInt64(bitPattern: results.integer(column))) : Double(results.integer(column))
        case .decimal:
            let text = results.text(column)
            guard let value = Double(text) else { throw decodingError(column, "the decimal \(text) is not a number") }
            return value
        default: throw wrongType(column, expected: "a number")
        }
    }

    public func readText(_ column: Int) throws -> String {
        guard !isNull(column), results.kind(column) == .text else { throw wrongType(column, expected: "text") }
        return results.text(column)
    }

    public func readBlob(_ column: Int) throws -> [UInt8] {
        guard !isNull(column), results.kind(column) == .bytes else { throw wrongType(column, expected: "bytes") }
        return Array(results.bytes(column))
    }

    public func readData(_ column: Int) throws -> Data {
        guard !isNull(column), results.kind(column) == .bytes else { throw wrongType(column, expected: "bytes") }
        return Data(results.bytes(column))
    }

    /// `BOOLEAN` is `TINYINT(1)`: 0 is false, 1 true, anything else does not fit.
    public func readBool(_ column: Int) throws -> Bool {
        guard !isNull(column), results.kind(column) == .integer else { throw wrongType(column, expected: "a boolean") }
        switch results.integer(column) {
        case 0: return false
        case 1: return true
        case let other: throw decodingError(column, "\(other) is not a boolean (0 or 1)")
        }
    }

    public func readDate(_ column: Int) throws -> Date {
        guard !isNull(column), results.kind(column) == .time else { throw wrongType(column, expected: "a DATETIME") }
        guard let date = MySQLTime.date(results.time(column)) else {
            throw decodingError(column, "the zero date or an incomplete date is not a point in time")
        }
        return date
    }

    /// A UUID from `BINARY(16)`, or from the 36 characters of `CHAR(36)`.
    public func readUUID(_ column: Int) throws -> UUID {
        guard !isNull(column) else { throw wrongType(column, expected: "a UUID") }
        switch results.kind(column) {
        case .bytes:
            let bytes = results.bytes(column)
            guard bytes.count == 16 else { throw decodingError(column, "\(bytes.count) bytes are not a UUID (16)") }
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
            return UUID(uuid: uuid)
        case .text:
            let text = results.text(column)
            guard let uuid = UUID(uuidString: text) else { throw decodingError(column, "\"\(text)\" is not a UUID") }
            return uuid
        default:
            throw wrongType(column, expected: "a UUID")
        }
    }

    public func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError {
        CRUDDecoderError("column \"\(resultColumnName(column))\": \(problem)")
    }

    private func wrongType(_ column: Int, expected: String) -> CRUDDecoderError {
        if isNull(column) { return decodingError(column, CRUDDecoderError.nullProblem) }
        let type = fields.map { MySQLBindings.describe($0[column]) } ?? "?"
        return decodingError(column, "the column is \(type), not \(expected)")
    }
}
#endif

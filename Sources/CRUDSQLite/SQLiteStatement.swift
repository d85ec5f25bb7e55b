@_spi(CRUDDriver) import CRUD
import CSQLite
import Foundation

/// A prepared SQLite statement: binds parameters by position and reads the current row by position.
///
/// Reads check the stored type, so a TEXT where an INTEGER belongs is an error rather than SQLite's
/// silent conversion to 0.
public final class SQLiteStatement: CRUDStatement {
    private var handle: OpaquePointer?
    private unowned let connection: SQLiteConnection
    @_spi(CRUDDriver) public let sql: String

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        finalize()
    }

    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    /// Back to the start with no parameters bound, ready for the next user.
    func clear() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Running

    public func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status:
            sqlite3_reset(handle)
            throw connection.error(status, sql: sql)
        }
    }

    public func reset() throws {
        let status = sqlite3_reset(handle)
        guard status == SQLITE_OK else { throw connection.error(status, sql: sql) }
    }

    public var changedRows: Int {
        Int(sqlite3_changes64(connection.handle))
    }

    @_spi(CRUDDriver) public var resultColumnCount: Int {
        Int(sqlite3_column_count(handle))
    }

    @_spi(CRUDDriver) public func resultColumnName(_ column: Int) -> String {
        sqlite3_column_name(handle, Int32(column)).map { String(cString: $0) } ?? ""
    }

    // MARK: - Binding

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    @inline(__always)
    private func check(_ status: Int32) throws {
        if status != SQLITE_OK { throw connection.error(status, sql: sql) }
    }

    public func bindNull(at position: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(position + 1)))
    }

    public func bindInt64(_ value: Int64, at position: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(position + 1), value))
    }

    public func bindReal(_ value: Double, at position: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(position + 1), value))
    }

    public func bindText(_ value: String, at position: Int) throws {
        var text = value
        try text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                // A NULL pointer would bind NULL: the empty string gets a real, empty one.
                return try check(sqlite3_bind_text64(handle, Int32(position + 1), "", 0, Self.transient, UInt8(SQLITE_UTF8)))
            }
            try check(sqlite3_bind_text64(handle, Int32(position + 1), UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                          UInt64(bytes.count), Self.transient, UInt8(SQLITE_UTF8)))
        }
    }

    private func bindBytes(_ bytes: UnsafeRawBufferPointer, at position: Int) throws {
        if bytes.isEmpty {
            try check(sqlite3_bind_zeroblob(handle, Int32(position + 1), 0))
        } else {
            try check(sqlite3_bind_blob64(handle, Int32(position + 1), bytes.baseAddress, UInt64(bytes.count), Self.transient))
        }
    }

    public func bindBlob(_ value: [UInt8], at position: Int) throws {
        try value.withUnsafeBytes { try bindBytes($0, at: position) }
    }

    public func bindData(_ value: Data, at position: Int) throws {
        try value.withUnsafeBytes { try bindBytes($0, at: position) }
    }

    public func bindBool(_ value: Bool, at position: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(position + 1), value ? 1 : 0))
    }

    public func bindDate(_ value: Date, at position: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(position + 1), value.timeIntervalSince1970))
    }

    public func bindUUID(_ value: UUID, at position: Int) throws {
        try bindText(value.uuidString, at: position)
    }

    // MARK: - Reading

    @inline(__always)
    private func storage(_ column: Int) -> Int32 {
        sqlite3_column_type(handle, Int32(column))
    }

    private static let storageNames = [SQLITE_INTEGER: "INTEGER", SQLITE_FLOAT: "REAL", SQLITE_TEXT: "TEXT", SQLITE_BLOB: "BLOB", SQLITE_NULL: "NULL"]

    private func wrongStorage(_ column: Int, expected: String) -> CRUDDecoderError {
        let found = storage(column)
        if found == SQLITE_NULL { return decodingError(column, CRUDDecoderError.nullProblem) }
        return decodingError(column, "stored as \(Self.storageNames[found] ?? "?") where \(expected) was expected")
    }

    public func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError {
        CRUDDecoderError("column \"\(resultColumnName(column))\": \(problem)")
    }

    public func isNull(_ column: Int) -> Bool {
        storage(column) == SQLITE_NULL
    }

    // Each read takes the column once as a value and asks it both its type and its content: one
    // sqlite3_column_* call instead of two. The value is unprotected, which is safe because a
    // connection is used by one thread at a time.

    @inline(__always)
    private func value(_ column: Int) -> OpaquePointer {
        sqlite3_column_value(handle, Int32(column))
    }

    public func readInt64(_ column: Int) throws -> Int64 {
        let value = value(column)
        guard sqlite3_value_type(value) == SQLITE_INTEGER else { throw wrongStorage(column, expected: "INTEGER") }
        return sqlite3_value_int64(value)
    }

    public func readReal(_ column: Int) throws -> Double {
        let value = value(column)
        let type = sqlite3_value_type(value)
        guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else { throw wrongStorage(column, expected: "REAL") }
        return sqlite3_value_double(value)
    }

    public func readText(_ column: Int) throws -> String {
        let value = value(column)
        guard sqlite3_value_type(value) == SQLITE_TEXT else { throw wrongStorage(column, expected: "TEXT") }
        guard let text = sqlite3_value_text(value) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    public func withTextBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        let value = value(column)
        guard sqlite3_value_type(value) == SQLITE_TEXT else { throw wrongStorage(column, expected: "TEXT") }
        let text = sqlite3_value_text(value)
        return try body(UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_value_bytes(value))))
    }

    private func withBlob<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) -> T) throws -> T {
        let value = value(column)
        guard sqlite3_value_type(value) == SQLITE_BLOB else { throw wrongStorage(column, expected: "BLOB") }
        let bytes = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        return body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
    }

    public func readBlob(_ column: Int) throws -> [UInt8] {
        try withBlob(column) { Array($0) }
    }

    public func readData(_ column: Int) throws -> Data {
        try withBlob(column) { Data($0) }
    }

    /// Only 0 and 1 are booleans: any other number in the column is an error, not `true`.
    public func readBool(_ column: Int) throws -> Bool {
        switch try readInt64(column) {
        case 0: return false
        case 1: return true
        case let other: throw decodingError(column, "\(other) where a Bool (0 or 1) was expected")
        }
    }

    public func readDate(_ column: Int) throws -> Date {
        let value = value(column)
        let type = sqlite3_value_type(value)
        guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else {
            throw wrongStorage(column, expected: "REAL seconds since 1970")
        }
        return Date(timeIntervalSince1970: sqlite3_value_double(value))
    }

    public func readUUID(_ column: Int) throws -> UUID {
        switch storage(column) {
        case SQLITE_TEXT:
            let text = try readText(column)
            guard let uuid = UUID(uuidString: text) else { throw decodingError(column, "\"\(text)\" is not a UUID") }
            return uuid
        case SQLITE_BLOB:
            return try withBlob(column) { bytes -> UUID? in
                guard bytes.count == 16 else { return nil }
                var uuid = UUID().uuid
                withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
                return UUID(uuid: uuid)
            } ?? { throw decodingError(column, "a BLOB of other than 16 bytes is not a UUID") }()
        default:
            throw wrongStorage(column, expected: "TEXT (a UUID)")
        }
    }
}

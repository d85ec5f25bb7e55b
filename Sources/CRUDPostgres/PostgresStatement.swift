import CLibPQ
@_spi(CRUDDriver) import CRUD
import Foundation

/// PostgreSQL type OIDs the driver reads and writes in binary.
enum TypeOID {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let name: Oid = 19
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let oid: Oid = 26
    static let float4: Oid = 700
    static let float8: Oid = 701
    static let unknown: Oid = 705
    static let bpchar: Oid = 1042
    static let varchar: Oid = 1043
    static let date: Oid = 1082
    static let timestamp: Oid = 1114
    static let timestamptz: Oid = 1184
    static let uuid: Oid = 2950
    static let json: Oid = 114
    static let jsonb: Oid = 3802

    static func isText(_ type: Oid) -> Bool {
        type == text || type == varchar || type == bpchar || type == name || type == unknown
    }
}

/// Seconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 (UTC).
private let postgresEpoch: TimeInterval = 946_684_800

/// A prepared PostgreSQL statement. Parameters are encoded in binary for the types the server
/// declared for them (in text where the parameter's type has no binary form here); results come
/// back in binary and each read checks the column's type, so nothing is converted silently.
public final class PostgresStatement: CRUDStatement {
    private unowned let connection: PostgresConnection
    let name: String
    /// `name` as libpq takes it, made once: a Swift string as short as a statement's name, passed
    /// where C wants a string, is copied into a new array at every call (an allocation a lookup).
    private let nameBytes: ContiguousArray<CChar>
    @_spi(CRUDDriver) public let sql: String
    let parameterTypes: [Oid]

    // The statement is used by one thread or task at a time (its connection's holder), so its state
    // skips Swift's dynamic exclusivity checks, which cost some 950 instructions a lookup here
    // (callgrind), more than the binding itself.

    /// The encoded parameters, back to back; each position's slice, length and format.
    @exclusivity(unchecked) private var parameterBytes: [UInt8] = []
    @exclusivity(unchecked) private var parameterOffsets: [Int]
    @exclusivity(unchecked) private var parameterLengths: [Int32]
    @exclusivity(unchecked) private var parameterFormats: [Int32]
    @exclusivity(unchecked) private var parameterIsSet: [Bool]

    @exclusivity(unchecked) private var result: OpaquePointer?
    /// The current row and the result's count, as libpq numbers them.
    @exclusivity(unchecked) private var row: Int32 = -1
    @exclusivity(unchecked) private var rowCount: Int32 = 0
    /// Each result column's type, read from the statement's first result: a prepared statement's
    /// result columns keep their types (PostgreSQL refuses to run it once they would change), so
    /// no cell asks libpq again. Used by one thread at a time, as the statement is, so reads skip
    /// Swift's dynamic exclusivity checks, which cost more than the call they save.
    @exclusivity(unchecked) private var columnTypes: UnsafeMutableBufferPointer<Oid>?

    /// The server connections the statement's session shares, where it does: the statement is
    /// prepared on each it ran on, under the same name.
    private let group: PostgresServerConnections?
    /// For each of the group's server connections, by index, its generation plus one where the
    /// statement is prepared there, else 0. Used by the session's holder, or under the group's lock.
    @exclusivity(unchecked) private var preparedOn: [Int] = []

    init(connection: PostgresConnection, name: String, sql: String, parameterTypes: [Oid], sharing group: PostgresServerConnections? = nil) {
        self.connection = connection
        self.group = group
        self.name = name
        nameBytes = name.utf8CString
        self.sql = sql
        self.parameterTypes = parameterTypes
        parameterOffsets = Array(repeating: 0, count: parameterTypes.count)
        parameterLengths = Array(repeating: 0, count: parameterTypes.count)
        parameterFormats = Array(repeating: 1, count: parameterTypes.count)
        parameterIsSet = Array(repeating: false, count: parameterTypes.count)
    }

    deinit {
        PQclear(result)
        columnTypes?.deallocate()
        if let group, preparedOn.contains(where: { $0 > 0 }) { group.deallocate(name, preparedOn: preparedOn) }
    }

    /// Whether the statement is prepared on `server`, one of its group's.
    func isPrepared(on server: PostgresServerConnection) -> Bool {
        server.holdsPreparation(marked: preparedOn)
    }

    /// The statement is prepared on `server` now.
    func markPrepared(on server: PostgresServerConnection) {
        if preparedOn.count <= server.index { preparedOn += Array(repeating: 0, count: server.index + 1 - preparedOn.count) }
        preparedOn[server.index] = server.generation + 1
    }

    /// The statement is not prepared on `server`.
    func forgetPreparation(on server: PostgresServerConnection) {
        if server.index < preparedOn.count { preparedOn[server.index] = 0 }
    }

    /// Back to no parameters and no result, ready for the next user.
    func clear() {
        PQclear(result)
        result = nil
        row = -1
        rowCount = 0
        parameterBytes.removeAll(keepingCapacity: true)
        for index in parameterIsSet.indices { parameterIsSet[index] = false }
    }

    // MARK: - Running

    public func step() throws -> Bool {
        if result == nil { try execute() }
        row += 1
        return row < rowCount
    }

    private func execute() throws {
        try connection.holding {
            try connection.ensurePrepared(self)
            try adopt(withParameters { name, count, values in
                isUnnamed ? PQexecParams(connection.handle, sql, count, parameterTypes, values, parameterLengths, parameterFormats, 1)
                    : PQexecPrepared(connection.handle, name, count, values, parameterLengths, parameterFormats, 1)
            })
        }
    }

    /// `execute()` without blocking a thread: sends the statement and waits for the answer on the
    /// event loop (`PostgresConnection.awaitAnswer`); a read outside a transaction (`reading`) goes
    /// through a shared server connection's pipeline.
    @inline(__always)
    nonisolated(nonsending) func executeWithoutBlocking(reading: Bool) async throws {
        // Taken strong once: each use of the unowned reference checks it anew.
        let connection = connection
        if reading, let answer = try await connection.pipelined(self) { return try adopt(answer.result) }
        // No closure for a connection of the session's own: its context would be a block the task
        // allocates.
        guard connection.sharesServerConnections else { return try await sendAwaitingAnswer(on: connection) }
        try await connection.holding { try await sendAwaitingAnswer(on: connection) }
    }

    @inline(__always)
    private nonisolated(nonsending) func sendAwaitingAnswer(on connection: PostgresConnection) async throws {
        try await connection.ensurePreparedAwaiting(self)
        guard send(on: connection.handle) == 1 else { throw connection.error(nil, sql: sql) }
        try adopt(try await connection.awaitAnswer(sql: sql))
    }

    /// `PQsendQueryPrepared` of the statement with its parameters, on `handle`; `PQsendQueryParams`
    /// of an unnamed one, parsed again.
    func send(on handle: OpaquePointer) -> Int32 {
        withParameters { name, count, values in
            isUnnamed ? PQsendQueryParams(handle, sql, count, parameterTypes, values, parameterLengths, parameterFormats, 1)
                : PQsendQueryPrepared(handle, name, count, values, parameterLengths, parameterFormats, 1)
        }
    }

    /// Whether the statement is sent whole at each run (behind a transaction pooler), prepared
    /// nowhere.
    var isUnnamed: Bool { name.isEmpty }

    /// Calls `run` with the statement's name, the parameter count and the parameters' values as
    /// libpq takes them (on the stack: no allocation per run).
    private func withParameters<T>(_ run: (UnsafePointer<CChar>, Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let count = parameterTypes.count
        // A set parameter needs a non-NULL pointer even when empty, so the buffer is never empty.
        if parameterBytes.isEmpty { parameterBytes.append(0) }
        return nameBytes.withUnsafeBufferPointer { name in
            parameterBytes.withUnsafeBufferPointer { bytes in
                withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { values in
                    let base = UnsafeRawPointer(bytes.baseAddress!)
                    for index in 0 ..< count {
                        let value = parameterIsSet[index] ? (base + parameterOffsets[index]).assumingMemoryBound(to: CChar.self) : nil
                        values.initializeElement(at: index, to: value)
                    }
                    return run(name.baseAddress!, Int32(count), UnsafePointer(values.baseAddress))
                }
            }
        }
    }

    /// Keeps `executed`, the server's answer, for `step()` to read, or throws the error it reports.
    private func adopt(_ executed: OpaquePointer?) throws {
        let status = executed.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let error = connection.error(executed, sql: sql)
            PQclear(executed)
            throw error
        }
        result = executed
        rowCount = status == PGRES_TUPLES_OK ? PQntuples(executed) : 0
        row = -1
        // An unnamed statement is planned anew at each run, so its result's types may change.
        if status == PGRES_TUPLES_OK, columnTypes == nil || isUnnamed {
            let count = Int(PQnfields(executed))
            if columnTypes?.count != count {
                columnTypes?.deallocate()
                columnTypes = UnsafeMutableBufferPointer<Oid>.allocate(capacity: count)
            }
            for column in 0 ..< count { columnTypes![column] = PQftype(executed, Int32(column)) }
        }
    }

    public func reset() throws {
        clear()
    }

    public var changedRows: Int {
        guard let result else { return 0 }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    @_spi(CRUDDriver) public var resultColumnCount: Int {
        result.map { Int(PQnfields($0)) } ?? 0
    }

    @_spi(CRUDDriver) public func resultColumnName(_ column: Int) -> String {
        guard let result, let name = PQfname(result, Int32(column)) else { return "" }
        return String(cString: name)
    }

    // MARK: - Binding

    private func type(_ position: Int) throws -> Oid {
        guard position < parameterTypes.count else {
            throw CRUDSQLExeError("parameter \(position + 1) does not exist: the statement has \(parameterTypes.count)", sql: sql)
        }
        return parameterTypes[position]
    }

    private func set(_ position: Int, format: Int32, _ write: (inout [UInt8]) -> Void) {
        let start = parameterBytes.count
        write(&parameterBytes)
        parameterOffsets[position] = start
        parameterLengths[position] = Int32(parameterBytes.count - start)
        parameterFormats[position] = format
        parameterIsSet[position] = true
    }

    private func setBinary<T: FixedWidthInteger>(_ position: Int, _ value: T) {
        set(position, format: 1) { bytes in
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
    }

    /// Text-format parameter: the server parses it as the parameter's type.
    private func setText(_ position: Int, _ text: String) {
        set(position, format: 0) { bytes in
            bytes.append(contentsOf: text.utf8)
            bytes.append(0)
        }
    }

    public func bindNull(at position: Int) throws {
        _ = try type(position)
        parameterIsSet[position] = false
    }

    public func bindInt64(_ value: Int64, at position: Int) throws {
        switch try type(position) {
        case TypeOID.int2:
            guard let narrow = Int16(exactly: value) else { throw CRUDEncoderError("\(value) is out of range for a smallint parameter (\(sql))") }
            setBinary(position, narrow)
        case TypeOID.int4:
            guard let narrow = Int32(exactly: value) else { throw CRUDEncoderError("\(value) is out of range for an integer parameter (\(sql))") }
            setBinary(position, narrow)
        case TypeOID.int8:
            setBinary(position, value)
        case TypeOID.float4:
            setBinary(position, Float(value).bitPattern)
        case TypeOID.float8:
            setBinary(position, Double(value).bitPattern)
        default:
            setText(position, String(value))
        }
    }

    public func bindReal(_ value: Double, at position: Int) throws {
        switch try type(position) {
        case TypeOID.float8: setBinary(position, value.bitPattern)
        case TypeOID.float4: setBinary(position, Float(value).bitPattern)
        default: setText(position, value.isNaN ? "NaN" : value.isInfinite ? (value > 0 ? "Infinity" : "-Infinity") : "\(value)")
        }
    }

    public func bindText(_ value: String, at position: Int) throws {
        if TypeOID.isText(try type(position)) {
            set(position, format: 1) { $0.append(contentsOf: value.utf8) }
        } else {
            setText(position, value)
        }
    }

    private func bindBytes(_ bytes: UnsafeRawBufferPointer, at position: Int) throws {
        let declared = try type(position)
        guard declared == TypeOID.bytea else {
            throw CRUDEncoderError("bytes bound to parameter \(position + 1) of type \(declared), which is not bytea (\(sql))")
        }
        set(position, format: 1) { $0.append(contentsOf: bytes) }
    }

    public func bindBlob(_ value: [UInt8], at position: Int) throws {
        try value.withUnsafeBytes { try bindBytes($0, at: position) }
    }

    public func bindData(_ value: Data, at position: Int) throws {
        try value.withUnsafeBytes { try bindBytes($0, at: position) }
    }

    public func bindBool(_ value: Bool, at position: Int) throws {
        if try type(position) == TypeOID.bool {
            set(position, format: 1) { $0.append(value ? 1 : 0) }
        } else {
            setText(position, value ? "true" : "false")
        }
    }

    public func bindDate(_ value: Date, at position: Int) throws {
        let declared = try type(position)
        if declared == TypeOID.timestamptz || declared == TypeOID.timestamp {
            let microseconds = ((value.timeIntervalSince1970 - postgresEpoch) * 1_000_000).rounded()
            setBinary(position, Int64(microseconds))
        } else {
            setText(position, value.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
    }

    public func bindUUID(_ value: UUID, at position: Int) throws {
        if try type(position) == TypeOID.uuid {
            set(position, format: 1) { bytes in
                withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
            }
        } else {
            setText(position, value.uuidString)
        }
    }

    // MARK: - Reading

    // Each read asks for the column's type first, read once per result, and then for the cell:
    // the column is then one the result has. The helpers are inlined into every read and their
    // errors built out of line, so a fetch's rows pay no calls but libpq's.

    /// The column's type, or 0 (no type's OID) where the result has no such column.
    @inline(__always)
    private func columnType(_ column: Int) -> Oid {
        guard let columnTypes, column >= 0, column < columnTypes.count else { return 0 }
        return columnTypes[column]
    }

    /// The cell's bytes where libpq keeps them, or `nil` for NULL: its length first, since a value
    /// with bytes is not NULL and only an empty one needs asking. Two calls into libpq where
    /// asking for nullness, type, value and length would take four. `column` is one the result
    /// has: its type was read first.
    @inline(__always)
    private func cell(_ column: Int) -> UnsafeRawBufferPointer? {
        let row = self.row, column = Int32(truncatingIfNeeded: column)
        let length = Int(PQgetlength(result, row, column))
        if length == 0, PQgetisnull(result, row, column) == 1 { return nil }
        return UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: length)
    }

    /// The cell as a fixed-width number in network byte order; NULL, or bytes of another count,
    /// throw.
    @inline(__always)
    private func load<T: FixedWidthInteger>(_ column: Int, as: T.Type) throws -> T {
        guard let value = cell(column), value.count == MemoryLayout<T>.size else { throw unreadable(column, as: T.self) }
        return T(bigEndian: value.loadUnaligned(as: T.self))
    }

    @inline(never)
    private func unreadable<T>(_ column: Int, as: T.Type) -> CRUDDecoderError {
        guard let value = cell(column) else { return decodingError(column, CRUDDecoderError.nullProblem) }
        return decodingError(column, "has \(value.count) bytes where \(T.self) was expected")
    }

    @inline(never)
    private func wrongType(_ column: Int, expected: String) -> CRUDDecoderError {
        let type = columnType(column)
        guard type != 0 else {
            return CRUDDecoderError("no column \(column) to read \(expected) from: the result has \(columnTypes?.count ?? 0) (\(sql))")
        }
        if isNull(column) { return decodingError(column, CRUDDecoderError.nullProblem) }
        return decodingError(column, "has PostgreSQL type \(type) where \(expected) was expected")
    }

    public func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError {
        CRUDDecoderError("column \"\(resultColumnName(column))\": \(problem)")
    }

    public func isNull(_ column: Int) -> Bool {
        PQgetisnull(result, row, Int32(column)) == 1
    }

    public func readInt64(_ column: Int) throws -> Int64 {
        switch columnType(column) {
        case TypeOID.int8: return try load(column, as: Int64.self)
        case TypeOID.int4: return Int64(try load(column, as: Int32.self))
        case TypeOID.int2: return Int64(try load(column, as: Int16.self))
        case TypeOID.oid: return Int64(try load(column, as: UInt32.self))
        default: throw wrongType(column, expected: "an integer")
        }
    }

    public func readReal(_ column: Int) throws -> Double {
        switch columnType(column) {
        case TypeOID.float8: return Double(bitPattern: try load(column, as: UInt64.self))
        case TypeOID.float4: return Double(Float(bitPattern: try load(column, as: UInt32.self)))
        case TypeOID.int8, TypeOID.int4, TypeOID.int2: return Double(try readInt64(column))
        default: throw wrongType(column, expected: "double precision")
        }
    }

    /// Text, and JSON as text: `json` comes as it is, binary `jsonb` after a version byte (1).
    public func readText(_ column: Int) throws -> String {
        try withTextBytes(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// The text's bytes where libpq keeps them; a `jsonb` value's after its version byte.
    @inline(__always)
    public func withTextBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        let type = columnType(column)
        if TypeOID.isText(type) || type == TypeOID.json, let value = cell(column) { return try body(value) }
        guard type == TypeOID.jsonb, let value = cell(column) else { throw wrongType(column, expected: "text") }
        guard value.first == 1 else { throw decodingError(column, "jsonb of an unknown binary version \(value.first.map(String.init) ?? "none")") }
        return try body(UnsafeRawBufferPointer(rebasing: value.dropFirst()))
    }

    public func readBlob(_ column: Int) throws -> [UInt8] {
        guard columnType(column) == TypeOID.bytea, let value = cell(column) else { throw wrongType(column, expected: "bytea") }
        return Array(value)
    }

    public func readData(_ column: Int) throws -> Data {
        guard columnType(column) == TypeOID.bytea, let value = cell(column) else { throw wrongType(column, expected: "bytea") }
        return Data(value)
    }

    public func readBool(_ column: Int) throws -> Bool {
        guard columnType(column) == TypeOID.bool else { throw wrongType(column, expected: "boolean") }
        return try load(column, as: UInt8.self) != 0
    }

    public func readDate(_ column: Int) throws -> Date {
        switch columnType(column) {
        case TypeOID.timestamptz, TypeOID.timestamp:
            return Date(timeIntervalSince1970: postgresEpoch + Double(try load(column, as: Int64.self)) / 1_000_000)
        case TypeOID.date:
            return Date(timeIntervalSince1970: postgresEpoch + Double(try load(column, as: Int32.self)) * 86_400)
        default:
            throw wrongType(column, expected: "timestamptz")
        }
    }

    public func readUUID(_ column: Int) throws -> UUID {
        let type = columnType(column)
        guard type == TypeOID.uuid || TypeOID.isText(type), let value = cell(column) else { throw wrongType(column, expected: "uuid") }
        switch type {
        case TypeOID.uuid:
            guard value.count == 16 else { throw decodingError(column, "has \(value.count) bytes where a 16-byte uuid was expected") }
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: value) }
            return UUID(uuid: uuid)
        default:
            let text = String(decoding: value, as: UTF8.self)
            guard let uuid = UUID(uuidString: text) else { throw decodingError(column, "\"\(text)\" is not a UUID") }
            return uuid
        }
    }
}

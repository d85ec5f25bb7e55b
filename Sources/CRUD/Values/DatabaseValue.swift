import Foundation

/// One value as a driver stores it: what a `CRUDValue` reduces to. Captured values carry `where`
/// operands and `sql(_:bindings:)` parameters to the statement, and serve as join keys.
public enum CRUDDatabaseValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// An integer, as every integer type is stored.
    case integer(Int64)
    /// A floating-point number (`Float` and `Double`).
    case real(Double)
    /// Text (`String`, `URL`, JSON).
    case text(String)
    /// Bytes (`[UInt8]`, `[Int8]`, `Data`).
    case blob([UInt8])
    /// A truth value.
    case bool(Bool)
    /// A point in time.
    case date(Date)
    /// A UUID.
    case uuid(UUID)

    /// Reduces a Swift value to what its binder would bind.
    /// - Throws: `CRUDEncoderError` when the value cannot be stored (a `UInt64` above `Int64.max`).
    @inlinable
    public init<Value: CRUDValue>(_ value: Value) throws {
        var capture = CRUDValueCapture()
        try value.crudBind(to: &capture, at: 0)
        self = capture.value
    }

    /// Binds this value to parameter `position`.
    @inlinable
    public func bind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        switch self {
        case .null: try binder.bindNull(at: position)
        case let .integer(value): try binder.bindInt64(value, at: position)
        case let .real(value): try binder.bindReal(value, at: position)
        case let .text(value): try binder.bindText(value, at: position)
        case let .blob(value): try binder.bindBlob(value, at: position)
        case let .bool(value): try binder.bindBool(value, at: position)
        case let .date(value): try binder.bindDate(value, at: position)
        case let .uuid(value): try binder.bindUUID(value, at: position)
        }
    }

    /// Reads column `column` of a row as a value of the given storage type.
    public init<Row: CRUDRowReader>(reading row: Row, column: Int, as type: CRUDColumnType) throws {
        if row.isNull(column) {
            self = .null
            return
        }
        switch type {
        case .integer: self = .integer(try row.readInt64(column))
        case .real: self = .real(try row.readReal(column))
        case .bool: self = .bool(try row.readBool(column))
        case .text, .json: self = .text(try row.readText(column))
        case .blob: self = .blob(try row.readBlob(column))
        case .date: self = .date(try row.readDate(column))
        case .uuid: self = .uuid(try row.readUUID(column))
        }
    }
}

/// A binder that keeps the one value bound to it.
@usableFromInline
struct CRUDValueCapture: CRUDBinder {
    @usableFromInline var value = CRUDDatabaseValue.null

    @inlinable init() {}

    @inlinable mutating func bindNull(at position: Int) throws { value = .null }
    @inlinable mutating func bindInt64(_ value: Int64, at position: Int) throws { self.value = .integer(value) }
    @inlinable mutating func bindReal(_ value: Double, at position: Int) throws { self.value = .real(value) }
    @inlinable mutating func bindText(_ value: String, at position: Int) throws { self.value = .text(value) }
    @inlinable mutating func bindBlob(_ value: [UInt8], at position: Int) throws { self.value = .blob(value) }
    @inlinable mutating func bindData(_ value: Data, at position: Int) throws { self.value = .blob(Array(value)) }
    @inlinable mutating func bindBool(_ value: Bool, at position: Int) throws { self.value = .bool(value) }
    @inlinable mutating func bindDate(_ value: Date, at position: Int) throws { self.value = .date(value) }
    @inlinable mutating func bindUUID(_ value: UUID, at position: Int) throws { self.value = .uuid(value) }
}

import Foundation

// Every integer width is stored as a signed 64-bit integer: the widest both SQLite and PostgreSQL keep
// exactly. A value that does not fit the other way round is an error, never a wrapped number.
extension CRUDValue where Self: FixedWidthInteger {
    @inlinable public static var crudColumnType: CRUDColumnType { .integer(bits: bitWidth, signed: isSigned) }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        let stored = try row.readInt64(column)
        guard let value = Self(exactly: stored) else {
            throw row.decodingError(column, "\(stored) does not fit in \(Self.self)")
        }
        self = value
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        guard let stored = Int64(exactly: self) else {
            throw CRUDEncoderError("\(Self.self) value \(self) is above Int64.max and cannot be stored exactly")
        }
        try binder.bindInt64(stored, at: position)
    }
}

extension Int: CRUDValue {}
extension Int8: CRUDValue {}
extension Int16: CRUDValue {}
extension Int32: CRUDValue {}
extension Int64: CRUDValue {}
extension UInt: CRUDValue {}
extension UInt8: CRUDValue {}
extension UInt16: CRUDValue {}
extension UInt32: CRUDValue {}
extension UInt64: CRUDValue {}

extension Double: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .real(bits: 64) }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = try row.readReal(column)
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindReal(self, at: position)
    }
}

// A Float widens to Double exactly, so it travels as one and narrows back to the same value.
extension Float: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .real(bits: 32) }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = Float(try row.readReal(column))
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindReal(Double(self), at: position)
    }
}

extension Bool: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .bool }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = try row.readBool(column)
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindBool(self, at: position)
    }
}

extension String: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .text }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = try row.readText(column)
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindText(self, at: position)
    }
}

/// A byte type whose arrays are stored as a blob: `UInt8` and `Int8` (by bit pattern, so negative
/// bytes round-trip).
public protocol CRUDByte {
    /// The byte whose bits are `crudByte`.
    init(crudByte: UInt8)
    /// This byte's bits, as stored.
    var crudByte: UInt8 { get }
}

extension UInt8: CRUDByte {
    @inlinable public init(crudByte: UInt8) { self = crudByte }
    @inlinable public var crudByte: UInt8 { self }
}

extension Int8: CRUDByte {
    @inlinable public init(crudByte: UInt8) { self.init(bitPattern: crudByte) }
    @inlinable public var crudByte: UInt8 { UInt8(bitPattern: self) }
}

extension Array: CRUDValue where Element: CRUDByte {
    @inlinable public static var crudColumnType: CRUDColumnType { .blob }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        let bytes = try row.readBlob(column)
        if let same = bytes as? Self {
            self = same
        } else {
            self = bytes.map(Element.init(crudByte:))
        }
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        if let bytes = self as? [UInt8] {
            try binder.bindBlob(bytes, at: position)
        } else {
            try binder.bindBlob(map(\.crudByte), at: position)
        }
    }
}

extension Data: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .blob }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = try row.readData(column)
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindData(self, at: position)
    }
}

extension Date: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .date }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = try row.readDate(column)
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindDate(self, at: position)
    }
}

extension UUID: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .uuid }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = try row.readUUID(column)
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindUUID(self, at: position)
    }
}

// A URL is stored as its absolute string.
extension URL: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { .text }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        let text = try row.readText(column)
        guard let url = URL(string: text) else { throw row.decodingError(column, "\"\(text)\" is not a URL") }
        self = url
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try binder.bindText(absoluteString, at: position)
    }
}

extension Optional: CRUDValue where Wrapped: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { Wrapped.crudColumnType }
    @inlinable public static var crudIsOptional: Bool { true }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = row.isNull(column) ? nil : try Wrapped(crudRow: row, column: column)
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        if let value = self {
            try value.crudBind(to: &binder, at: position)
        } else {
            try binder.bindNull(at: position)
        }
    }
}

// A raw-representable type (an enum, typically) is stored as its raw value; a stored raw value with no
// matching case is a decoding error that names it.
extension CRUDValue where Self: RawRepresentable, RawValue: CRUDValue {
    @inlinable public static var crudColumnType: CRUDColumnType { RawValue.crudColumnType }

    @inlinable
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        let raw = try RawValue(crudRow: row, column: column)
        guard let value = Self(rawValue: raw) else {
            throw row.decodingError(column, "\(raw) is not a raw value of \(Self.self)")
        }
        self = value
    }

    @inlinable
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        try rawValue.crudBind(to: &binder, at: position)
    }
}

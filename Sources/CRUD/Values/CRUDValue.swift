/// A Swift type that can be stored in one column.
///
/// The standard conformances cover every `Int` and `UInt` width, `Double`, `Float`, `Bool`, `String`,
/// `[UInt8]`, `[Int8]`, `Data`, `Date`, `UUID`, `URL` and their optionals. A `RawRepresentable` type
/// whose raw value is one of these gets the implementation for free: declare `extension Mood: CRUDValue {}`
/// (the generator writes that for enums it finds in the target).
public protocol CRUDValue {
    /// How the column is stored.
    static var crudColumnType: CRUDColumnType { get }
    /// Whether the column accepts NULL; `true` only for `Optional`.
    static var crudIsOptional: Bool { get }
    /// Reads a value from one column of the current row.
    /// - Throws: `CRUDDecoderError` when the column is NULL or out of this type's range.
    init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws
    /// Binds this value to one statement parameter.
    /// - Throws: `CRUDEncoderError` when the value cannot be stored faithfully.
    func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws
}

extension CRUDValue {
    @inlinable public static var crudIsOptional: Bool { false }
}

extension CRUDRowReader {
    /// Reads column `column` as `Value`: the one call generated row readers make per column.
    @inlinable
    public func read<Value: CRUDValue>(_ column: Int) throws -> Value {
        try Value(crudRow: self, column: column)
    }

    /// Reads `column` of this row: what generated row readers call, by the column's name.
    @inlinable
    public func read<Model, Value>(_ column: CRUDColumn<Model, Value>) throws -> Value {
        try Value(crudRow: self, column: column.index)
    }
}

extension CRUDBinder {
    /// Binds `value` to parameter `position`: the one call generated binders make per column.
    @inlinable
    public mutating func bind<Value: CRUDValue>(_ value: Value, at position: Int) throws {
        try value.crudBind(to: &self, at: position)
    }
}

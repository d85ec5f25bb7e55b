import Foundation

/// Write access to the parameters of a statement, by parameter position (0-based).
///
/// A driver implements the primitives in its own storage format; `CRUDValue` conformances reduce every
/// supported Swift type to them.
public protocol CRUDBinder {
    /// Binds NULL to the parameter at `position`.
    /// - Throws: `CRUDSQLExeError` when the driver refuses (a position out of range).
    mutating func bindNull(at position: Int) throws
    /// Binds a signed 64-bit integer (every integer type of Swift is bound so).
    /// - Throws: `CRUDSQLExeError` when the driver refuses.
    mutating func bindInt64(_ value: Int64, at position: Int) throws
    /// Binds a floating-point number (`Float` is widened exactly).
    /// - Throws: `CRUDSQLExeError` when the driver refuses; `CRUDEncoderError` for a value the
    ///   database cannot store (MySQL has no infinity or NaN).
    mutating func bindReal(_ value: Double, at position: Int) throws
    /// Binds text, as UTF-8.
    /// - Throws: `CRUDSQLExeError` when the driver refuses.
    mutating func bindText(_ value: String, at position: Int) throws
    /// Binds bytes.
    /// - Throws: `CRUDSQLExeError` when the driver refuses.
    mutating func bindBlob(_ value: [UInt8], at position: Int) throws
    /// Binds the bytes of `value`.
    /// - Throws: `CRUDSQLExeError` when the driver refuses.
    mutating func bindData(_ value: Data, at position: Int) throws
    /// Binds a truth value in the database's representation (SQLite's 0 or 1, PostgreSQL's boolean).
    /// - Throws: `CRUDSQLExeError` when the driver refuses.
    mutating func bindBool(_ value: Bool, at position: Int) throws
    /// Binds a point in time in the database's representation of `Date`.
    /// - Throws: `CRUDSQLExeError` when the driver refuses.
    mutating func bindDate(_ value: Date, at position: Int) throws
    /// Binds a UUID in the database's representation of `UUID`.
    /// - Throws: `CRUDSQLExeError` when the driver refuses.
    mutating func bindUUID(_ value: UUID, at position: Int) throws
}

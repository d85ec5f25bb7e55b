import Foundation

/// Write access to the parameters of a statement, by parameter position (0-based).
///
/// A driver implements the primitives in its own storage format; `CRUDValue` conformances reduce every
/// supported Swift type to them.
public protocol CRUDBinder {
    mutating func bindNull(at position: Int) throws
    mutating func bindInt64(_ value: Int64, at position: Int) throws
    mutating func bindReal(_ value: Double, at position: Int) throws
    mutating func bindText(_ value: String, at position: Int) throws
    mutating func bindBlob(_ value: [UInt8], at position: Int) throws
    mutating func bindData(_ value: Data, at position: Int) throws
    mutating func bindBool(_ value: Bool, at position: Int) throws
    mutating func bindDate(_ value: Date, at position: Int) throws
    mutating func bindUUID(_ value: UUID, at position: Int) throws
}

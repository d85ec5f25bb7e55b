/// How a column's values are stored, independent of any database. A driver's dialect turns it into
/// a concrete SQL type (`INTEGER`, `bigint`, `timestamptz`, …).
public enum CRUDColumnType: Sendable, Hashable, CustomStringConvertible {
    /// A whole number of the given width in bits (8, 16, 32 or 64).
    case integer(bits: Int, signed: Bool)
    /// A binary floating-point number of the given width in bits (32 or 64).
    case real(bits: Int)
    /// A truth value.
    case bool
    /// Text, UTF-8 (`String`, `URL`).
    case text
    /// Raw bytes: `[UInt8]`, `[Int8]`, `Data`.
    case blob
    /// A point in time.
    case date
    /// A UUID.
    case uuid
    /// A `CRUDJSONValue` (a `Codable` type, or `CRUDJSON` around an array or a dictionary) as JSON.
    case json

    public var description: String {
        switch self {
        case let .integer(bits, signed): "\(signed ? "" : "unsigned ")\(bits)-bit integer"
        case let .real(bits): "\(bits)-bit floating-point number"
        case .bool: "boolean"
        case .text: "text"
        case .blob: "bytes"
        case .date: "date"
        case .uuid: "UUID"
        case .json: "JSON"
        }
    }
}

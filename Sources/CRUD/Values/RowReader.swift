import Foundation

/// Read access to the current row of a result, by column position (0-based).
///
/// A driver implements the primitives in its own storage format; `CRUDValue` conformances build every
/// supported Swift type from them. Readers are used generically, so the calls are direct.
///
/// Each `read…` method throws a `CRUDDecoderError` (from `decodingError`) when the column is NULL or
/// holds a value of another kind, so reading a non-optional column needs no separate NULL check.
public protocol CRUDRowReader {
    /// Whether the column holds NULL.
    func isNull(_ column: Int) -> Bool
    /// The column's integer, as a signed 64-bit value (every integer type of Swift is stored so).
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds no integer.
    func readInt64(_ column: Int) throws -> Int64
    /// The column's floating-point number (`Float` columns are read through it and narrowed).
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds no number of that kind.
    func readReal(_ column: Int) throws -> Double
    /// The column's text, UTF-8 decoded.
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds no text.
    func readText(_ column: Int) throws -> String
    /// Calls `body` with the column's text as UTF-8 bytes, which last only for the call: what a JSON
    /// column is decoded from, without making a `String` of it. The default reads `readText`.
    /// - Throws: as `readText`; what `body` throws.
    func withTextBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T
    /// The column's bytes.
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds no bytes.
    func readBlob(_ column: Int) throws -> [UInt8]
    /// The column's bytes as `Data`.
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds no bytes.
    func readData(_ column: Int) throws -> Data
    /// The column's truth value, in the database's own representation (SQLite's 0 or 1, PostgreSQL's
    /// boolean, MySQL's TINYINT(1)).
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds anything else (a SQLite 2 is not
    ///   `true`).
    func readBool(_ column: Int) throws -> Bool
    /// The column's point in time, in the database's representation of `Date`.
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds no time.
    func readDate(_ column: Int) throws -> Date
    /// The column's UUID, in the database's representation of `UUID`.
    /// - Throws: `CRUDDecoderError` when the column is NULL or holds no UUID.
    func readUUID(_ column: Int) throws -> UUID
    /// The rows a join brought in for relation `index` of the model being read: `nil` when the query
    /// did not join that relation, `[]` when it did and found nothing for this row.
    func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]?
    /// The error for a value in `column` that cannot be read as wanted; drivers name table and column.
    func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError
}

extension CRUDRowReader {
    /// No relations: a reader of plain rows, which no join fills.
    public func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]? { nil }

    /// An error that names the column by position only.
    public func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError {
        CRUDDecoderError("column \(column): \(problem)")
    }
}

extension CRUDRowReader {
    public func withTextBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        var text = try readText(column)
        return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}

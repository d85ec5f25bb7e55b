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
    func readInt64(_ column: Int) throws -> Int64
    func readReal(_ column: Int) throws -> Double
    func readText(_ column: Int) throws -> String
    func readBlob(_ column: Int) throws -> [UInt8]
    func readData(_ column: Int) throws -> Data
    func readBool(_ column: Int) throws -> Bool
    func readDate(_ column: Int) throws -> Date
    func readUUID(_ column: Int) throws -> UUID
    /// The rows a join brought in for relation `index` of the model being read: `nil` when the query
    /// did not join that relation, `[]` when it did and found nothing for this row.
    func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]?
    /// The error for a value in `column` that cannot be read as wanted; drivers name table and column.
    func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError
}

extension CRUDRowReader {
    public func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]? { nil }

    public func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError {
        CRUDDecoderError("column \(column): \(problem)")
    }
}

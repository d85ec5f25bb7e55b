@_spi(CRUDDriver) import CRUD

/// The dialect a `RecordingConfiguration` uses unless given another: numbered placeholders (`$1`),
/// `LIMIT`/`OFFSET`, and type names of its own (`INT64`, `FLOAT64`, `TEXT`…), so that a test sees
/// which spellings come from the dialect. Pass a driver's dialect (`SQLiteDialect()`…) to record
/// exactly what that database would be sent.
public struct RecordingDialect: CRUDDialect {
    /// The dialect; it holds no state.
    public init() {}

    public var name: String { "Recording" }

    public func columnType(_ type: CRUDColumnType) -> String {
        switch type {
        case let .integer(bits, signed): "INT\(bits)\(signed ? "" : "U")"
        case let .real(bits): "FLOAT\(bits)"
        case .bool: "BOOL"
        case .text: "TEXT"
        case .blob: "BYTES"
        case .date: "TIME"
        case .uuid: "UUID"
        case .json: "JSON"
        }
    }

    public func placeholder(_ position: Int) -> String { "$\(position + 1)" }

    public func limitClause(max: String?, skip: String?) -> String {
        [max.map { "LIMIT \($0)" }, skip.map { "OFFSET \($0)" }].compactMap { $0 }.joined(separator: " ")
    }

    public func beginTransaction(_ mode: TransactionMode) throws -> String { "BEGIN" }

    public func zeroValue(_ type: CRUDColumnType) -> String { "ZERO" }

    /// A query of a catalog of its own: `RecordingConnection` answers it from `uniqueKeys`.
    @_spi(CRUDDriver) public func uniqueKeysQuery(ofTable table: String) -> (sql: String, parameters: [CRUDDatabaseValue]) {
        ("SELECT key, column FROM unique_keys WHERE table = $1", [.text(table)])
    }

    /// Two rows per `INSERT`, so that a test of a few rows sees batches split.
    public func rowsPerInsert(columns: Int) -> Int { 2 }
}

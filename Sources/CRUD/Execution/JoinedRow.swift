import Foundation

/// The children a join found, grouped by the parent key they belong to.
@usableFromInline
struct JoinedChildren {
    /// The root column holding the key.
    var parentColumn: Int
    var keyType: CRUDColumnType
    /// `[CRUDDatabaseValue: [Child]]` for the join's child type.
    var groups: Any
}

/// A root row of a joined query: reads go to the statement, relations to the joins' children.
@usableFromInline
struct JoinedRow<Base: CRUDRowReader>: CRUDRowReader {
    @usableFromInline let base: Base
    /// By relation position.
    @usableFromInline let joins: [Int: JoinedChildren]

    @inlinable
    init(base: Base, joins: [Int: JoinedChildren]) {
        self.base = base
        self.joins = joins
    }

    @usableFromInline
    func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]? {
        guard let join = joins[index] else { return nil }
        let key = try CRUDDatabaseValue(reading: base, column: join.parentColumn, as: join.keyType)
        guard key != .null, let groups = join.groups as? [CRUDDatabaseValue: [Related]] else { return [] }
        return groups[key] ?? []
    }

    @inlinable func isNull(_ column: Int) -> Bool { base.isNull(column) }
    @inlinable func readInt64(_ column: Int) throws -> Int64 { try base.readInt64(column) }
    @inlinable func readDouble(_ column: Int) throws -> Double { try base.readDouble(column) }
    @inlinable func readText(_ column: Int) throws -> String { try base.readText(column) }
    @inlinable func readBlob(_ column: Int) throws -> [UInt8] { try base.readBlob(column) }
    @inlinable func readData(_ column: Int) throws -> Data { try base.readData(column) }
    @inlinable func readBool(_ column: Int) throws -> Bool { try base.readBool(column) }
    @inlinable func readDate(_ column: Int) throws -> Date { try base.readDate(column) }
    @inlinable func readUUID(_ column: Int) throws -> UUID { try base.readUUID(column) }
    @inlinable func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError { base.decodingError(column, problem) }
}

/// A row of a raw SQL result read as a model: the model's columns are found by name.
struct NamedColumnRow<Base: CRUDRowReader>: CRUDRowReader {
    let base: Base
    /// Result column for each model column.
    let positions: [Int]

    func isNull(_ column: Int) -> Bool { base.isNull(positions[column]) }
    func readInt64(_ column: Int) throws -> Int64 { try base.readInt64(positions[column]) }
    func readDouble(_ column: Int) throws -> Double { try base.readDouble(positions[column]) }
    func readText(_ column: Int) throws -> String { try base.readText(positions[column]) }
    func readBlob(_ column: Int) throws -> [UInt8] { try base.readBlob(positions[column]) }
    func readData(_ column: Int) throws -> Data { try base.readData(positions[column]) }
    func readBool(_ column: Int) throws -> Bool { try base.readBool(positions[column]) }
    func readDate(_ column: Int) throws -> Date { try base.readDate(positions[column]) }
    func readUUID(_ column: Int) throws -> UUID { try base.readUUID(positions[column]) }
    func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError { base.decodingError(positions[column], problem) }
}

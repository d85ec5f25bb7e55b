import Foundation

/// A join's children, loaded the first time a parent row asks for them (`JoinedRow.relation`):
/// there the child model and the driver's statement type are concrete, so reading the child rows
/// specializes in the caller's module. They are grouped by the parent key they belong to, integer
/// keys as `Int64`.
///
/// Used by the cursor's thread alone (under the session's gate where the session is shared).
@usableFromInline
final class JoinedChildren<Connection: CRUDConnection> {
    /// The root column holding the key.
    @usableFromInline let parentColumn: Int
    @usableFromInline let keyType: CRUDColumnType
    @usableFromInline let sql: String
    @usableFromInline let parameters: [CRUDDatabaseValue]
    /// The result column holding the parent key: the child's own column, or the junction table's
    /// after the child's columns.
    @usableFromInline let keyColumn: Int
    /// The join's limit, applied to each parent.
    @usableFromInline let limit: CRUDQueryPlan.Limit?
    @usableFromInline let session: CRUDSession<Connection>
    /// `ChildGroups` of the join's child type, once loaded.
    @usableFromInline var groups: AnyObject?

    init(parentColumn: Int, keyType: CRUDColumnType, sql: String, parameters: [CRUDDatabaseValue], keyColumn: Int,
         limit: CRUDQueryPlan.Limit?, session: CRUDSession<Connection>) {
        self.parentColumn = parentColumn
        self.keyType = keyType
        self.sql = sql
        self.parameters = parameters
        self.keyColumn = keyColumn
        self.limit = limit
        self.session = session
    }

    /// Whether keys are integers, grouped as `Int64`.
    @inlinable var integerKeys: Bool {
        if case .integer = keyType { true } else { false }
    }

    /// The children of the parent row `row` is on.
    @inlinable
    func children<Child: CRUDModel>(of row: Connection.Statement, as _: Child.Type) throws -> [Child] {
        let loaded: ChildGroups<Child>
        if let groups {
            // A relation is always read as its declared model, so these are `Child`'s groups.
            loaded = unsafeDowncast(groups, to: ChildGroups<Child>.self)
        } else {
            loaded = try load(Child.self)
            groups = loaded
        }
        if row.isNull(parentColumn) { return [] }
        if integerKeys { return loaded.byInteger[try row.readInt64(parentColumn)] ?? [] }
        return loaded.byValue[try CRUDDatabaseValue(reading: row, column: parentColumn, as: keyType)] ?? []
    }

    /// Runs the child query and groups its rows.
    @inlinable
    func load<Child: CRUDModel>(_: Child.Type) throws -> ChildGroups<Child> {
        try session.withStatement(sql, parameters) { try group($0, as: Child.self) }
    }

    /// Groups the children the child query's `statement` reads as the join's declared `model`,
    /// before the root rows are read: an operation's read, which does no I/O of its own, in either
    /// runner. The model's type is opened here, so these rows are read through generic code, where a
    /// cursor's are read specialized in the caller's module.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError` naming the child model.
    @usableFromInline
    func load(from statement: Connection.Statement, as model: any CRUDModel.Type) throws {
        groups = try grouped(statement, as: model)
    }

    /// The groups as `groups` keeps them, so that `model`'s type is opened for the call.
    private func grouped<Child: CRUDModel>(_ statement: Connection.Statement, as _: Child.Type) throws -> AnyObject {
        try group(statement, as: Child.self)
    }

    /// Groups the rows of the child query, which `statement` runs, keeping at most the join's limit
    /// per parent. The query's `key IN (…)` never yields a NULL key. The groups are built in locals
    /// and stored once, so no row pays for access checks on the class's properties.
    /// - Throws: `CRUDSQLExeError`, `CRUDDecoderError` naming the child model.
    @inlinable
    func group<Child: CRUDModel>(_ statement: Connection.Statement, as _: Child.Type) throws -> ChildGroups<Child> {
        var byInteger: [Int64: [Child]] = [:]
        var byValue: [CRUDDatabaseValue: [Child]] = [:]
        let integerKeys = integerKeys
        let (keyColumn, keyType, limit) = (keyColumn, keyType, limit)
        var seen: [CRUDDatabaseValue: Int] = [:]
        while try statement.step() {
            if let limit {
                let key = try CRUDDatabaseValue(reading: statement, column: keyColumn, as: keyType)
                let position = seen[key, default: 0]
                seen[key] = position + 1
                if position < limit.skip { continue }
                if let max = limit.max, position - limit.skip >= max { continue }
            }
            let child: Child
            do {
                child = try Child(crudRow: statement)
            } catch let error as CRUDDecoderError {
                throw error.reading(Child.self)
            }
            if integerKeys {
                byInteger[try statement.readInt64(keyColumn), default: []].append(child)
            } else {
                byValue[try CRUDDatabaseValue(reading: statement, column: keyColumn, as: keyType), default: []].append(child)
            }
        }
        let loaded = ChildGroups<Child>()
        loaded.byInteger = byInteger
        loaded.byValue = byValue
        return loaded
    }
}

/// A join's children by parent key.
@usableFromInline
final class ChildGroups<Child> {
    @usableFromInline var byInteger: [Int64: [Child]] = [:]
    @usableFromInline var byValue: [CRUDDatabaseValue: [Child]] = [:]

    @inlinable init() {}
}

/// A root row of a joined query: reads go to the statement, relations to the joins' children.
@usableFromInline
struct JoinedRow<Connection: CRUDConnection>: CRUDRowReader {
    @usableFromInline let base: Connection.Statement
    /// By relation position; `nil` for a relation the query did not join.
    @usableFromInline let joins: [JoinedChildren<Connection>?]

    @inlinable
    init(base: Connection.Statement, joins: [JoinedChildren<Connection>?]) {
        self.base = base
        self.joins = joins
    }

    @inlinable
    func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]? {
        guard index < joins.count, let join = joins[index] else { return nil }
        return try join.children(of: base, as: Related.self)
    }

    @inlinable func isNull(_ column: Int) -> Bool { base.isNull(column) }
    @inlinable func readInt64(_ column: Int) throws -> Int64 { try base.readInt64(column) }
    @inlinable func readReal(_ column: Int) throws -> Double { try base.readReal(column) }
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
    func readReal(_ column: Int) throws -> Double { try base.readReal(positions[column]) }
    func readText(_ column: Int) throws -> String { try base.readText(positions[column]) }
    func readBlob(_ column: Int) throws -> [UInt8] { try base.readBlob(positions[column]) }
    func readData(_ column: Int) throws -> Data { try base.readData(positions[column]) }
    func readBool(_ column: Int) throws -> Bool { try base.readBool(positions[column]) }
    func readDate(_ column: Int) throws -> Date { try base.readDate(positions[column]) }
    func readUUID(_ column: Int) throws -> UUID { try base.readUUID(positions[column]) }
    func decodingError(_ column: Int, _ problem: String) -> CRUDDecoderError { base.decodingError(positions[column], problem) }
}

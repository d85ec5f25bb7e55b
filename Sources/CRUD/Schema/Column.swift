/// A typed reference to one column of `Model`'s table, holding values of type `Value`.
///
/// Generated code declares one per column (`Person.Columns.firstName`). Conditions and ordering take
/// them wherever they take key paths, type-checked the same way: `where(Person.Columns.firstName ==
/// "Owen")`, `order(by: Person.Columns.lastName)`; an `Int` column compares only with an `Int`.
public struct CRUDColumn<Model: CRUDModel, Value: CRUDValue>: CRUDTableColumn, Hashable {
    /// The column's position in the table (and in `Model.crudSchema.columns`).
    public let index: Int
    /// The column's name in the database.
    public let name: String

    /// The column at `index` of the table, named `name`; generated code makes these. Inlinable, so
    /// that a generated reader's `row.read(Columns.name)` compiles to the read of a constant position.
    @_spi(Generated) @inlinable
    public init(_ index: Int, _ name: String) {
        self.index = index
        self.name = name
    }

    /// This column's description for the table schema.
    public var schema: CRUDColumnSchema {
        CRUDColumnSchema(name: name, type: Value.crudColumnType, isOptional: Value.crudIsOptional)
    }
}

/// A column of `Model`'s table whatever its value type: what `order(by:)` takes, so that columns of
/// several types can be listed together.
public protocol CRUDTableColumn<Model>: Sendable {
    /// The model whose table has the column.
    associatedtype Model: CRUDModel
    /// The column's position in the table.
    var index: Int { get }
}

/// A typed reference to one column of `Model`'s table, holding values of type `Value`.
///
/// Generated code declares one per column (`Person.Columns.firstName`), giving the column's position,
/// name and schema with its model and value type. Conditions and ordering name columns by key path
/// (`\Person.firstName == "Owen"`), which the generated code maps to these columns.
public struct CRUDColumn<Model: CRUDModel, Value: CRUDValue>: Sendable, Hashable {
    /// The column's position in the table (and in `Model.crudSchema.columns`).
    public let index: Int
    /// The column's name in the database.
    public let name: String

    public init(_ index: Int, _ name: String) {
        self.index = index
        self.name = name
    }

    /// This column's description for the table schema.
    public var schema: CRUDColumnSchema {
        CRUDColumnSchema(name: name, type: Value.crudColumnType, isOptional: Value.crudIsOptional)
    }
}

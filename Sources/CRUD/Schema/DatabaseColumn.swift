/// A column of an existing table, as the database declares it: what the schema check and
/// `alterTable` compare with a model's generated schema.
@_spi(CRUDDriver) public struct CRUDDatabaseColumn: Sendable, Hashable {
    /// The column's name.
    public let name: String
    /// The type as the database reports it (`INTEGER`, `VARCHAR(40)`, `timestamp with time zone`).
    public let declaredType: String
    /// Whether the column accepts NULL.
    public let isNullable: Bool
    /// Whether the column is (part of) the primary key.
    public let isPrimaryKey: Bool

    /// A column as the database declares it.
    public init(name: String, declaredType: String, isNullable: Bool, isPrimaryKey: Bool) {
        self.name = name
        self.declaredType = declaredType
        self.isNullable = isNullable
        self.isPrimaryKey = isPrimaryKey
    }
}

extension CRUDDatabaseColumn {
    /// Whether this column's type does not hold the values of the model's `column`.
    func typeDiffers(from column: CRUDColumnSchema, in dialect: any CRUDDialect) -> Bool {
        !dialect.declaredType(declaredType, holds: column.type)
    }

    /// Whether this column accepts NULL where `column` is not optional, or refuses it where `column`
    /// is; a primary key refuses NULL even for an optional `id` that the database assigns.
    func nullabilityDiffers(from column: CRUDColumnSchema) -> Bool {
        isNullable != column.isOptional && !(column.isOptional && isPrimaryKey)
    }
}

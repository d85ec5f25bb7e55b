/// The shape of a model's table, as the generator read it from the model's declaration.
public struct CRUDTableSchema: Sendable {
    /// The table's name: the type's name, or its `TableNameProvider.tableName`.
    public let name: String
    /// Every column, in table order: the order rows are read and bound in.
    public let columns: [CRUDColumnSchema]
    /// The position of the property named `id`, which becomes the primary key unless `create` names
    /// another; `nil` when there is no such property.
    public let primaryKey: Int?
    /// The `[Model]?` properties that joins fill, in declaration order.
    public let relations: [CRUDRelationSchema]

    /// Whether `column` is a column holding integers: a key the database can make.
    func isIntegerColumn(_ column: Int?) -> Bool {
        guard let column, case .integer = columns[column].type else { return false }
        return true
    }

    /// A table's shape; generated code makes these.
    @_spi(Generated) public init(name: String, columns: [CRUDColumnSchema], primaryKey: Int?, relations: [CRUDRelationSchema]) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.relations = relations
    }
}

/// One column of a table.
public struct CRUDColumnSchema: Sendable, Hashable {
    /// The column's name in the database (the property name, or its `CodingKeys` raw value).
    public let name: String
    /// How the column's values are stored.
    public let type: CRUDColumnType
    /// Whether the property is optional, so the column accepts NULL.
    public let isOptional: Bool

    /// A column's shape.
    @_spi(Generated) public init(name: String, type: CRUDColumnType, isOptional: Bool) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }
}

/// A `[Model]?` property that a join fills with rows of another (or the same) table.
public struct CRUDRelationSchema: Sendable {
    /// The property's name in Swift.
    public let name: String
    /// The model type of the related rows.
    public let target: any CRUDModel.Type

    /// A relation property named `name`, holding rows of `target`.
    @_spi(Generated) public init(name: String, target: any CRUDModel.Type) {
        self.name = name
        self.target = target
    }
}

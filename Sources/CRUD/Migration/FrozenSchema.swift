/// Every table of a target's models as one migration left them: what `crud-migrations` writes into
/// each step file it generates, so that the step says what the schema was at that version and never
/// reads the models as they are today.
public struct CRUDSchema: Sendable, Hashable {
    /// The tables, in the order they were declared.
    public var tables: [CRUDSchemaTable]

    /// A schema of these tables.
    public init(_ tables: [CRUDSchemaTable]) {
        self.tables = tables
    }

    /// The table named `name`, or `nil`.
    public subscript(table name: String) -> CRUDSchemaTable? {
        tables.first { $0.name == name }
    }
}

/// A table as a migration froze it: its columns, key, constraints and indexes, by name.
public struct CRUDSchemaTable: Sendable, Hashable {
    /// The table's name.
    public var name: String
    /// The columns, in table order.
    public var columns: [CRUDSchemaColumn]
    /// The primary-key column, or `nil` for none.
    public var primaryKey: String?
    /// Foreign keys, unique column sets and checks.
    public var constraints: [CRUDSchemaConstraint]
    /// The indexes that are not constraints.
    public var indexes: [CRUDSchemaIndex]
    /// Whether the database never gives a deleted row's integer key to a new row: SQLite's
    /// `AUTOINCREMENT`, from the model's `crudNeverReusesKeys` (the other backends never reuse keys).
    public var neverReusesKeys: Bool

    /// A table named `name` with these columns, key, constraints and indexes; `neverReusesKeys` as
    /// the model's `crudNeverReusesKeys`.
    public init(_ name: String, columns: [CRUDSchemaColumn], primaryKey: String? = nil,
                constraints: [CRUDSchemaConstraint] = [], indexes: [CRUDSchemaIndex] = [], neverReusesKeys: Bool = false) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.constraints = constraints
        self.indexes = indexes
        self.neverReusesKeys = neverReusesKeys
    }

    /// The column named `name`, or `nil`.
    public subscript(column name: String) -> CRUDSchemaColumn? {
        columns.first { $0.name == name }
    }
}

/// One column of a frozen table.
public struct CRUDSchemaColumn: Sendable, Hashable {
    /// The column's name.
    public var name: String
    /// How its values are stored; each dialect spells it (`INTEGER`, `bigint`, `BIGINT`).
    public var type: CRUDColumnType
    /// Whether it accepts NULL (an optional property). A primary key refuses NULL whatever this says.
    public var isNullable: Bool

    /// A column named `name` of `type`, refusing NULL unless `nullable`.
    public init(_ name: String, _ type: CRUDColumnType, nullable: Bool = false) {
        self.name = name
        self.type = type
        self.isNullable = nullable
    }
}

/// An index of a frozen table, by name.
public struct CRUDSchemaIndex: Sendable, Hashable {
    /// The index's name, unique in the database.
    public var name: String
    /// The indexed columns, in order.
    public var columns: [String]
    /// Whether no two rows may share the indexed values.
    public var isUnique: Bool

    /// An index named `name` on `columns`.
    public init(_ name: String, columns: [String], unique: Bool = false) {
        self.name = name
        self.columns = columns
        self.isUnique = unique
    }
}

/// A constraint of a frozen table, by name: what `CRUDConstraint` declares of a model, with its key
/// paths resolved to column names.
public enum CRUDSchemaConstraint: Sendable, Hashable {
    /// No two rows share the values of `columns`.
    case unique(String, columns: [String])
    /// `columns` reference `referencedColumns` of `table`.
    case foreignKey(String, columns: [String], references: String, referencedColumns: [String],
                    onDelete: CRUDReferentialAction = .noAction, onUpdate: CRUDReferentialAction = .noAction)
    /// Every row meets `condition`, SQL written by the schema's author.
    case check(String, condition: String)
    /// Every row meets `condition`, which CRUD wrote from a typed check (`.check(\Bicycle.wheels >= 1)`)
    /// in standard SQL, names in double quotes and strings in single quotes, and writes in each
    /// database's quoting when it creates it.
    case typedCheck(String, condition: String)

    /// The constraint's name.
    public var name: String {
        switch self {
        case let .unique(name, _), let .foreignKey(name, _, _, _, _, _), let .check(name, _), let .typedCheck(name, _): name
        }
    }

    /// The columns it constrains; none for a check, whose condition is SQL.
    var columns: [String] {
        switch self {
        case let .unique(_, columns), let .foreignKey(_, columns, _, _, _, _): columns
        case .check, .typedCheck: []
        }
    }
}

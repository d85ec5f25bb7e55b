/// One change of a frozen migration step, naming tables and columns as they were at its version.
public enum CRUDSchemaChange: Sendable, Hashable {
    /// Creates the table with its columns, key, constraints and indexes.
    case createTable(CRUDSchemaTable)
    /// Drops the table and its rows.
    case dropTable(String)
    /// Adds a column; a column that refuses NULL gets its type's zero value (0, '', false) in the
    /// rows already there, and no default after that.
    case addColumn(CRUDSchemaColumn, table: String)
    /// Drops a column and its values.
    case dropColumn(String, table: String)
    /// Renames a column, keeping its values.
    case renameColumn(String, to: String, table: String)
    /// Converts a column's values to another type, or changes whether it accepts NULL. Values that
    /// do not convert without loss ("forty-two" to an integer, a NULL into NOT NULL) fail the step.
    case alterColumn(from: CRUDSchemaColumn, to: CRUDSchemaColumn, table: String)
    /// Converts a column's values to another type as `alterColumn` does, except that a value the new
    /// type cannot hold exactly is converted `by` the rule the step states, instead of failing it:
    /// a choice written into the step, never made for it. `crud-migrations` writes `alterColumn`,
    /// with this form in a comment where values can be lost.
    case convertColumn(from: CRUDSchemaColumn, to: CRUDSchemaColumn, table: String, by: CRUDConversion)
    /// Makes an index.
    case addIndex(CRUDSchemaIndex, table: String)
    /// Drops an index.
    case dropIndex(CRUDSchemaIndex, table: String)
    /// Adds a constraint, which the rows already there must meet.
    case addConstraint(CRUDSchemaConstraint, table: String)
    /// Drops a constraint.
    case dropConstraint(CRUDSchemaConstraint, table: String)
    /// Says whether the table never gives a deleted row's key to a new row (the model's
    /// `crudNeverReusesKeys`): turned on, SQLite rebuilds the table with `AUTOINCREMENT`, counting on
    /// from its largest key; turned off, the database keeps never reusing keys, which is harmless.
    /// PostgreSQL and MySQL never reuse keys: nothing runs there.
    case setNeverReusesKeys(Bool, table: String)

    /// The table the change is to, by the name it has when the change runs.
    var table: String {
        switch self {
        case let .createTable(table): table.name
        case let .dropTable(table): table
        case let .addColumn(_, table), let .dropColumn(_, table), let .renameColumn(_, _, table), let .alterColumn(_, _, table),
             let .convertColumn(_, _, table, _),
             let .addIndex(_, table), let .dropIndex(_, table), let .addConstraint(_, table), let .dropConstraint(_, table),
             let .setNeverReusesKeys(_, table):
            table
        }
    }
}

/// How a migration step converts values that their new type cannot hold exactly.
public enum CRUDConversion: String, Sendable, Hashable {
    /// A number with a fraction becomes the nearest integer: halves away from zero on SQLite and
    /// MySQL, to the even neighbour on PostgreSQL (its conversion of a `double precision`).
    case rounding
}

/// A migration step that `crud-migrations` wrote from the models as they were at one version: the
/// changes from the version before, and every table as the changes leave them. It never reads the
/// models, so it means the same on a new install years later as on the day it shipped.
///
///     static let addPriority = CRUDSchemaMigration("0002 add priority", changes: [
///         .addColumn(CRUDSchemaColumn("priority", .integer(bits: 64, signed: true), nullable: true), table: "Todo"),
///     ], schema: CRUDSchema([...]))
///
/// Register it with `CRUDMigrator.register(_:)`, between hand-written steps where data moves.
public struct CRUDSchemaMigration: Sendable, Hashable {
    /// The step's name, recorded in `crud_migrations` once applied.
    public let name: String
    /// The changes, in the order they run on databases that change tables in place.
    public let changes: [CRUDSchemaChange]
    /// Every table as the changes leave them: what a database that rebuilds tables to change them
    /// (SQLite) rebuilds each changed table to, and what `Database.checkSchema(_:)` compares with.
    public let schema: CRUDSchema

    /// A step named `name` making `changes`, after which the tables are `schema`.
    public init(_ name: String, changes: [CRUDSchemaChange], schema: CRUDSchema) {
        self.name = name
        self.changes = changes
        self.schema = schema
    }
}

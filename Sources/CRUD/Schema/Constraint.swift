/// What a foreign key does to the referencing rows when the referenced row is deleted or its key
/// changes.
public enum CRUDReferentialAction: String, Sendable {
    /// Delete (or update) the referencing rows with it.
    case cascade = "CASCADE"
    /// Set the referencing column to NULL (it must be optional).
    case setNull = "SET NULL"
    /// Set the referencing column to its default (NULL, since `create` declares no other).
    case setDefault = "SET DEFAULT"
    /// Refuse at once.
    case restrict = "RESTRICT"
    /// Refuse at the end of the statement (the default).
    case noAction = "NO ACTION"
}

/// A table constraint of `Model`, declared next to the model and created by `create`:
///
///     extension Bicycle {
///         static let crudConstraints: [CRUDConstraint<Bicycle>] = [
///             .foreignKey(\.ownerId, references: \Person.id, onDelete: .cascade),
///             .unique(\.name, \.color),
///         ]
///     }
///
/// A foreign key is type-checked: its column must hold the referenced key's type (or its optional).
/// A violation throws `CRUDSQLExeError` with `kind` telling which sort it was.
public struct CRUDConstraint<Model: CRUDModel>: Sendable {
    enum Kind: Sendable {
        case foreignKey(target: any CRUDModel.Type, onDelete: CRUDReferentialAction, onUpdate: CRUDReferentialAction)
        case unique
        case check(String)
        case typedCheck(CRUDBooleanExpression)
    }

    let kind: Kind
    /// The constrained columns; key paths are immutable once formed, so sharing them is safe.
    nonisolated(unsafe) let columns: [PartialKeyPath<Model>]
    /// The referenced key of a foreign key.
    nonisolated(unsafe) let target: AnyKeyPath?
    /// The name given, or `nil` for the default (`Table_column_fkey`, `Table_columns_key`).
    let name: String?

    /// A foreign key from `column` to another model's key (its primary key or a unique column).
    public static func foreignKey<Value: CRUDValue, Target: CRUDModel>(
        _ column: KeyPath<Model, Value>, references key: KeyPath<Target, Value>,
        onDelete: CRUDReferentialAction = .noAction, onUpdate: CRUDReferentialAction = .noAction, name: String? = nil
    ) -> CRUDConstraint {
        CRUDConstraint(kind: .foreignKey(target: Target.self, onDelete: onDelete, onUpdate: onUpdate), columns: [column], target: key, name: name)
    }

    /// A foreign key from an optional column (NULL references nothing) to another model's key.
    public static func foreignKey<Value: CRUDValue, Target: CRUDModel>(
        _ column: KeyPath<Model, Value?>, references key: KeyPath<Target, Value>,
        onDelete: CRUDReferentialAction = .noAction, onUpdate: CRUDReferentialAction = .noAction, name: String? = nil
    ) -> CRUDConstraint {
        CRUDConstraint(kind: .foreignKey(target: Target.self, onDelete: onDelete, onUpdate: onUpdate), columns: [column], target: key, name: name)
    }

    /// No two rows share the values of these columns.
    public static func unique(_ first: PartialKeyPath<Model>, _ rest: PartialKeyPath<Model>..., name: String? = nil) -> CRUDConstraint {
        CRUDConstraint(kind: .unique, columns: [first] + rest, target: nil, name: name)
    }

    /// A condition every row meets, written in SQL by you (`"\"score\" >= 0"`): it is part of the
    /// schema you write, so it is not bound; use the dialect's quoting for names. Give each of several
    /// checks its own name (the default is `Table_check`).
    public static func check(_ condition: String, name: String? = nil) -> CRUDConstraint {
        CRUDConstraint(kind: .check(condition), columns: [], target: nil, name: name)
    }

    /// A condition every row meets, built from the model's columns with the operators of `where`
    /// (`\Bicycle.wheels >= 1 && \Bicycle.wheels <= 3`): every backend writes it in its own quoting,
    /// and its values go into the schema's text. Comparisons with numbers, text, truth values and
    /// `nil`, `~` lists of them, `&&`, `||` and `!`; a `LIKE`, a function or a date is SQL text's
    /// (`check(_:name:)` with a string). `crud-migrations` reads comparisons, `&&`, `||` and `!` from
    /// the source. Give each of several checks its own name (the default is `Table_check`).
    public static func check(_ condition: CRUDBooleanExpression, name: String? = nil) -> CRUDConstraint {
        CRUDConstraint(kind: .typedCheck(condition), columns: [], target: nil, name: name)
    }

    /// The constraint's SQL for `CREATE TABLE`, in a dialect: what tells whether SQLite's kept
    /// table text has it.
    /// - Throws: `CRUDSQLGenError` when a key path names no column, or the dialect cannot carry the
    ///   constraint out.
    func definition(in dialect: any CRUDDialect) throws -> String {
        let constraint = try frozen()
        do {
            return try SQLBuilder(dialect: dialect).constraint(constraint, tableColumns: Model.crudSchema.columns.map(\.name))
        } catch let error as CRUDSQLGenError {
            throw CRUDSQLGenError("create: the constraint on \(columns.first.map { "\($0)" } ?? "") of \(Model.self): \(error.msg)")
        }
    }

    /// The constraint with its key paths resolved to column names, and its default name.
    /// - Throws: `CRUDSQLGenError` when a key path names no column.
    func frozen() throws -> CRUDSchemaConstraint {
        let schema = Model.crudSchema
        let names = try columns.map { keyPath -> String in
            guard let index = Model.crudColumnIndex(of: keyPath) else {
                throw CRUDSQLGenError("create: the constraint on \(keyPath) of \(Model.self) names no column; constraints name stored columns")
            }
            return schema.columns[index].name
        }
        switch kind {
        case let .foreignKey(targetModel, onDelete, onUpdate):
            guard let target, let index = targetModel.crudColumnIndex(ofAny: target) else {
                throw CRUDSQLGenError("create: the foreign key \(columns[0]) of \(Model.self) references \(String(describing: target)), which names no column of \(targetModel)")
            }
            return .foreignKey(name ?? "\(schema.name)_\(names.joined(separator: "_"))_fkey", columns: names, references: targetModel.crudSchema.name,
                               referencedColumns: [targetModel.crudSchema.columns[index].name], onDelete: onDelete, onUpdate: onUpdate)
        case .unique:
            return .unique(name ?? "\(schema.name)_\(names.joined(separator: "_"))_key", columns: names)
        case let .check(condition):
            return .check(name ?? "\(schema.name)_check", condition: condition)
        case let .typedCheck(condition):
            do {
                return .typedCheck(name ?? "\(schema.name)_check", condition: try SQLBuilder.standardCheck(condition.node, of: Model.self))
            } catch let error as CRUDSQLGenError {
                throw CRUDSQLGenError("create: \(error.msg)")
            }
        }
    }
}

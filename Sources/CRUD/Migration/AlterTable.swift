extension Database {
    /// Changes the existing table of `type` to the model's schema as it is now, keeping its rows:
    /// columns the model gained are added (a non-optional one filled with its type's zero value),
    /// columns it no longer has are dropped with their data, columns whose type or nullability
    /// changed are converted. `renamedColumns` (new name: old name) carries a column's values over
    /// to its new name. Meant for a `CRUDMigrator` step, next to the model change it follows.
    ///
    /// Values convert only without loss: text "42" becomes 42 in an integer column; "forty-two", a
    /// NULL in a column that became non-optional, or a value that breaks a constraint fails the whole
    /// change, and the table stays as it was.
    ///
    /// SQLite, whose `ALTER TABLE` can neither retype a column nor add a constraint, leaves a table
    /// that already matches the model as it is, adds the optional columns a model gained with
    /// `ADD COLUMN`, and for any other change gets the rebuild its documentation describes: a new
    /// table with the model's columns and constraints (and `AUTOINCREMENT` with its counter, where
    /// the table had it), the rows copied, the old table dropped and the new one renamed, its
    /// indexes made again (but those on dropped columns), and every foreign key of the database
    /// checked before the commit.
    /// Rows of other tables that reference it stay: foreign keys are off during the rebuild, so run
    /// it outside a transaction or in a migrator step. PostgreSQL changes the table in place
    /// (`ALTER COLUMN … TYPE … USING`) and adds the constraints whose names the table lacks.
    /// - Parameters:
    ///   - type: the model whose table to change.
    ///   - primaryKey: the primary key of the rebuilt table (SQLite); the property named `id` by
    ///     default.
    ///   - renamedColumns: old column names by new name, for columns whose values move to a new
    ///     name instead of being dropped and added.
    /// - Throws: `CRUDSQLGenError` when the table does not exist, a renamed column is not in it, or it
    ///   runs on SQLite inside a transaction that has foreign keys on; `CRUDDecoderError` naming the
    ///   column when a value does not convert; `CRUDSQLExeError` when the database refuses a step
    ///   (a NULL for a NOT NULL column, a violated constraint or foreign key).
    public func alterTable<A: CRUDModel>(_ type: A.Type, primaryKey: PartialKeyPath<A>? = nil,
                                         renamedColumns: [String: String] = [:]) throws {
        var key: Int?
        try executor.schemaTransaction("alterTable(\(A.self).self)", tables: A.crudSchemaTables(deep: false), checking: {
            key = try Self.primaryKeyColumn(primaryKey, of: A.self, for: "alterTable")
        }) { steps in
            let schema = A.crudSchema
            guard let existing = try steps.columns(ofTable: schema.name) else {
                throw CRUDSQLGenError("alterTable: the table \"\(schema.name)\" of \(A.self) does not exist; create it with create(\(A.self).self)")
            }
            let change = try TableChange(schema, existing: existing, renamed: renamedColumns, dialect: steps.dialect)
            if steps.dialect.alterTableRebuilds {
                try changeWithoutAlterColumn(A.self, primaryKey: key, change, existing: existing, on: steps)
            } else {
                try alterInPlace(A.self, change, on: steps)
            }
        }
    }

    /// Changes the table with `ALTER TABLE` actions: each on its own where schema changes are
    /// transactional (PostgreSQL, which takes a `RENAME` with no other action), all in one statement
    /// elsewhere (MySQL), so that a value that does not convert leaves the table as it was.
    private func alterInPlace<A: CRUDModel>(_ model: A.Type, _ change: TableChange, on steps: CRUDSchemaSteps<C.Connection>) throws {
        let schema = A.crudSchema
        let dialect = steps.dialect
        let renamedFrom = Dictionary(uniqueKeysWithValues: change.renamed.map { ($0.new, $0.old) })
        var actions = change.dropped.map(CRUDAlterAction.dropColumn)
        for (index, column) in schema.columns.enumerated() {
            guard let source = change.sources[index] else {
                actions.append(.addColumn(column))
                continue
            }
            let retyped = source.typeDiffers(from: column, in: dialect)
            if retyped, let real = [CRUDColumnType.real(bits: 64), .real(bits: 32)].first(where: { dialect.declaredType(source.declaredType, holds: $0) }) {
                let key = schema.primaryKey.flatMap { key in change.sources[key].map { CRUDSchemaColumn($0.name, schema.columns[key].type) } }
                if let lossy = try steps.firstLossyValue(of: source.name, in: schema.name, key: key, from: real, to: column.type) {
                    throw CRUDDecoderError("alterTable(\(A.self).self): \(lossy), and the database would round it; nothing was changed: "
                        + "change such values first, or retype the column in a migration step that states the rounding (.convertColumn)")
                }
            }
            actions += dialect.alterColumn(column, renamedFrom: renamedFrom[column.name], typeChanged: retyped,
                                           nullabilityChanged: source.nullabilityDiffers(from: column)).map(CRUDAlterAction.spelled)
        }
        let existing = try steps.constraintNames(ofTable: schema.name)
        for constraint in try A.crudFrozenConstraints() where !existing.contains(SQLBuilder.keptName(constraint.name, in: dialect)) {
            actions.append(.addConstraint(constraint, tableColumns: schema.columns.map(\.name)))
        }
        guard !actions.isEmpty else { return }
        if dialect.transactionalDDL {
            for action in actions { try steps.run(.alterTable(schema.name, actions: [action])) }
        } else {
            try steps.run(.alterTable(schema.name, actions: actions))
        }
    }

    /// Where `ALTER TABLE` can only add a column (SQLite): nothing when the table already matches
    /// the model, `ADD COLUMN` when the model only gained optional columns, and a rebuild otherwise.
    /// The table's kept `CREATE TABLE` text tells whether it has the model's constraints, each
    /// exactly as `create` writes it, and no other.
    private func changeWithoutAlterColumn<A: CRUDModel>(_ model: A.Type, primaryKey: Int?, _ change: TableChange, existing: [CRUDDatabaseColumn],
                                                        on steps: CRUDSchemaSteps<C.Connection>) throws {
        let schema = A.crudSchema
        let dialect = steps.dialect
        let definition = try steps.tableDefinition(ofTable: schema.name)
        let constraints = try A.crudConstraintDefinitions(in: dialect)
        if let definition, change.onlyAddsOptionalColumns(to: schema, primaryKey: primaryKey, existing: existing),
           definition.components(separatedBy: "CONSTRAINT ").count - 1 == constraints.count,
           constraints.allSatisfy(definition.contains) {
            for (column, source) in zip(schema.columns, change.sources) where source == nil {
                try steps.run(.addColumn(column, table: schema.name))
            }
            return
        }
        try rebuild(A.self, primaryKey: primaryKey, change, constraints: try A.crudFrozenConstraints(),
                    neverReuseKeys: steps.neverReusesKeys(definition: definition), on: steps)
    }

    private func rebuild<A: CRUDModel>(_ model: A.Type, primaryKey: Int?, _ change: TableChange, constraints: [CRUDSchemaConstraint], neverReuseKeys: Bool,
                                       on steps: CRUDSchemaSteps<C.Connection>) throws {
        let schema = A.crudSchema
        guard try !steps.dropRunsForeignKeyActions() else {
            throw CRUDSQLGenError("alterTable(\(A.self).self) would drop the table with foreign keys on, running "
                + "their ON DELETE actions on the rows that reference it: call it outside a transaction, or in a CRUDMigrator step")
        }
        let kept = Set(schema.columns.map(\.name))
        let indexes = try steps.indexes(ofTable: schema.name).filter { $0.columns.allSatisfy(kept.contains) }
        try steps.rebuild(schema, primaryKey: primaryKey, constraints: constraints, sources: change.sources,
                          neverReuseKeys: neverReuseKeys, indexes: indexes.map { .raw($0.sql, []) })
        if change.retypes {
            // The database converted what converts without loss; anything else is still of its old
            // type, and reading every row through the model finds it.
            do {
                try steps.readEveryRow(A.self)
            } catch let error as CRUDDecoderError {
                throw CRUDDecoderError("alterTable(\(A.self).self): a value does not convert, nothing was changed: \(error.msg)")
            }
        }
    }
}

/// How an existing table differs from its model: where each model column's values come from, and
/// which columns go.
struct TableChange {
    /// For each model column, the existing column its values come from; `nil` for a new column.
    let sources: [CRUDDatabaseColumn?]
    /// Existing columns no model column takes its values from.
    let dropped: [String]
    /// Renames that apply: new name to old name.
    let renamed: [(new: String, old: String)]
    /// Whether some kept column changes its type.
    let retypes: Bool

    /// Whether the table keeps every column as it is (name, type, nullability, primary key), and the
    /// model's columns it lacks are optional: what `ADD COLUMN` alone can do, or nothing at all.
    func onlyAddsOptionalColumns(to schema: CRUDTableSchema, primaryKey: Int?, existing: [CRUDDatabaseColumn]) -> Bool {
        guard dropped.isEmpty, renamed.isEmpty, !retypes else { return false }
        let key = Set(primaryKey.map { [schema.columns[$0].name] } ?? [])
        guard Set(existing.filter(\.isPrimaryKey).map(\.name)) == key else { return false }
        return zip(schema.columns, sources).allSatisfy { column, source in
            source.map { !$0.nullabilityDiffers(from: column) } ?? column.isOptional
        }
    }

    init(_ schema: CRUDTableSchema, existing: [CRUDDatabaseColumn], renamed: [String: String], dialect: any CRUDDialect) throws {
        let byName = Dictionary(existing.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var renames: [(String, String)] = []
        for (new, old) in renamed.sorted(by: { $0.key < $1.key }) {
            guard byName[old] != nil, schema.columns.contains(where: { $0.name == new }) else {
                throw CRUDSQLGenError("alterTable: cannot rename \"\(old)\" to \"\(new)\" in \"\(schema.name)\": "
                    + (byName[old] == nil ? "the table has no column \"\(old)\"" : "the model has no column \"\(new)\""))
            }
            renames.append((new, old))
        }
        let oldNames = Dictionary(renames, uniquingKeysWith: { first, _ in first })
        sources = schema.columns.map { byName[oldNames[$0.name] ?? $0.name] }
        let used = Set(sources.compactMap { $0?.name })
        dropped = existing.map(\.name).filter { !used.contains($0) }
        self.renamed = renames
        retypes = zip(schema.columns, sources).contains { column, source in
            source?.typeDiffers(from: column, in: dialect) ?? false
        }
    }
}

/// Runs one frozen migration's changes on the session of a schema transaction: each in place where
/// `ALTER TABLE` can make it, and where it cannot (SQLite, which neither retypes a column nor adds a
/// constraint) one rebuild of each such table to the migration's own frozen table, never to a model.
struct CRUDMigrationApplier<Connection: CRUDConnection> {
    let migration: CRUDSchemaMigration
    let steps: CRUDSchemaSteps<Connection>

    private var dialect: any CRUDDialect { steps.dialect }

    /// - Throws: `CRUDSQLGenError` for a table the migration expects and the database lacks;
    ///   `CRUDDecoderError` for a value a retyped column could not convert; `CRUDSQLExeError` when the
    ///   database refuses a change.
    func apply() throws {
        try refuseLossyValues()
        if !dialect.transactionalDDL { return try applyGrouped() }
        let rebuilt = tablesToRebuild()
        var renamed: [String: [String: String]] = [:]
        var converted: [String: [String: CRUDConversion]] = [:]
        for change in migration.changes {
            switch change {
            case .createTable, .dropTable:
                try applyInPlace(change)
            case let .convertColumn(_, to, table, conversion) where rebuilt.contains(table):
                converted[table, default: [:]][to.name] = conversion
            case let .renameColumn(old, new, table) where rebuilt.contains(table):
                // A column renamed twice still takes its values from its first name.
                let original = renamed[table]?.removeValue(forKey: old) ?? old
                renamed[table, default: [:]][new] = original
            case _ where rebuilt.contains(change.table):
                continue
            default:
                try applyInPlace(change)
            }
        }
        for table in rebuilt {
            try rebuild(table, renamed: renamed[table] ?? [:], converting: converted[table] ?? [:])
        }
    }

    /// The tables a change of which `ALTER TABLE` cannot make here, in the order first changed.
    private func tablesToRebuild() -> [String] {
        guard dialect.alterTableRebuilds else { return [] }
        var tables: [String] = []
        for change in migration.changes {
            switch change {
            case let .addColumn(column, table) where !column.isNullable:
                if !tables.contains(table) { tables.append(table) }
            case let .dropColumn(_, table), let .alterColumn(_, _, table), let .convertColumn(_, _, table, _), let .addConstraint(_, table),
                 let .dropConstraint(_, table), let .setNeverReusesKeys(true, table):
                if !tables.contains(table) { tables.append(table) }
            default:
                continue
            }
        }
        return tables
    }

    private func applyInPlace(_ change: CRUDSchemaChange) throws {
        if let actions = try alterActions(of: change) { return try alter(change.table, actions) }
        switch change {
        case let .createTable(table):
            let schema = table.tableSchema
            try steps.run(.createTable(schema, primaryKey: schema.primaryKey, constraints: table.constraints, ifNotExists: false,
                                       neverReuseKeys: table.neverReusesKeys && schema.isIntegerColumn(schema.primaryKey)))
            for index in table.indexes {
                try steps.run(try schema.createIndex(index))
            }
        case let .dropTable(table):
            try steps.run(.dropTable(table))
        case let .addIndex(index, table):
            guard let frozen = migration.schema[table: table] else { throw missing(table, for: "addIndex") }
            try steps.run(try frozen.tableSchema.createIndex(index))
        case let .dropIndex(index, table):
            try steps.run(.dropIndex(index.name, table: table))
        default:
            break
        }
    }

    /// The `ALTER TABLE` actions that make `change`, a change to a table's columns or constraints;
    /// `nil` for a change of another kind (a table's, an index's).
    private func alterActions(of change: CRUDSchemaChange) throws -> [CRUDAlterAction]? {
        switch change {
        case .createTable, .dropTable, .addIndex, .dropIndex, .setNeverReusesKeys:
            return nil
        case let .addColumn(column, _):
            // The zero value fills the rows there; a fresh install's table has no default.
            return [.addColumn(column.columnSchema)] + (column.isNullable ? [] : [.dropDefault(column.name)])
        case let .dropColumn(column, _):
            return [.dropColumn(column)]
        case let .renameColumn(old, new, table):
            let column = try frozenColumn(new, of: table, for: "renameColumn")
            return dialect.alterColumn(column.columnSchema, renamedFrom: old, typeChanged: false, nullabilityChanged: false).map(CRUDAlterAction.spelled)
        case let .alterColumn(from, to, _), let .convertColumn(from, to, _, _):
            // A conversion the step states is the database's own, which rounds.
            return dialect.alterColumn(to.columnSchema, renamedFrom: nil, typeChanged: from.type != to.type,
                                       nullabilityChanged: from.isNullable != to.isNullable).map(CRUDAlterAction.spelled)
        case let .addConstraint(constraint, table):
            guard let frozen = migration.schema[table: table] else { throw missing(table, for: "addConstraint") }
            return [.addConstraint(constraint, tableColumns: frozen.columns.map(\.name))]
        case let .dropConstraint(constraint, _):
            return [.dropConstraint(constraint)]
        }
    }

    /// Makes the changes where every schema statement commits at once (MySQL): each table's changes
    /// to its columns and constraints in one `ALTER TABLE`, which the database applies whole or not
    /// at all, in the order the step gives them; a change of another kind (a table created or
    /// dropped, an index) runs where it stands, after what comes before it.
    private func applyGrouped() throws {
        var pending: [(table: String, actions: [CRUDAlterAction])] = []
        // By table: the columns a pending `CHANGE COLUMN` renamed, which it gave their new definition.
        var renamed: [String: Set<String>] = [:]
        func flush(_ table: String? = nil) throws {
            for (name, actions) in pending where table == nil || name == table {
                try steps.run(.alterTable(name, actions: actions))
                renamed[name] = nil
            }
            pending.removeAll { table == nil || $0.table == table }
        }
        for change in migration.changes {
            guard let actions = try alterActions(of: change) else {
                if case .createTable = change { try flush() } else if case .dropTable = change { try flush() } else { try flush(change.table) }
                try applyInPlace(change)
                continue
            }
            switch change {
            case let .renameColumn(_, new, table):
                renamed[table, default: []].insert(new)
            case let .alterColumn(_, to, table) where renamed[table]?.contains(to.name) == true,
                 let .convertColumn(_, to, table, _) where renamed[table]?.contains(to.name) == true:
                // Its rename wrote the column's definition of this step already: a second clause
                // on it would name a column the statement has not made yet.
                continue
            default:
                break
            }
            if let position = pending.firstIndex(where: { $0.table == change.table }) {
                pending[position].actions += actions
            } else {
                pending.append((change.table, actions))
            }
        }
        try flush()
    }

    /// Runs `actions` on `table`: one statement each where schema changes are transactional, all in
    /// one elsewhere (MySQL), which the database applies whole or not at all.
    private func alter(_ table: String, _ actions: [CRUDAlterAction]) throws {
        guard !actions.isEmpty else { return }
        if dialect.transactionalDDL {
            for action in actions { try steps.run(.alterTable(table, actions: [action])) }
        } else {
            try steps.run(.alterTable(table, actions: actions))
        }
    }

    /// Refuses the step, before it changes anything, where a column it retypes with `alterColumn`
    /// holds a value the new type cannot hold exactly, naming the row (`convertColumn` states a
    /// conversion instead): the rule is the same on every database, whichever would round.
    /// - Throws: `CRUDMigrationError.lossyValue`; `CRUDSQLExeError`.
    private func refuseLossyValues() throws {
        let created = Set(migration.changes.compactMap { change -> String? in
            guard case let .createTable(table) = change else { return nil }
            return table.name
        })
        // By table: a column's name after the renames so far, to its name before the step.
        var namedBefore: [String: [String: String]] = [:]
        for change in migration.changes where !created.contains(change.table) {
            switch change {
            case let .renameColumn(old, new, table):
                let original = namedBefore[table]?.removeValue(forKey: old) ?? old
                namedBefore[table, default: [:]][new] = original
            case let .alterColumn(from, to, table):
                let names = namedBefore[table] ?? [:]
                let frozen = migration.schema[table: table]
                var key = frozen?.primaryKey.flatMap { frozen?[column: $0] }
                if let name = key?.name { key?.name = names[name] ?? name }
                if let lossy = try steps.firstLossyValue(of: names[to.name] ?? to.name, in: table, key: key, from: from.type, to: to.type) {
                    throw CRUDMigrationError.lossyValue(name: migration.name, lossy)
                }
            default:
                continue
            }
        }
    }

    private func frozenColumn(_ name: String, of table: String, for change: String) throws -> CRUDSchemaColumn {
        guard let frozen = migration.schema[table: table] else { throw missing(table, for: change) }
        guard let column = frozen[column: name] else {
            throw CRUDSQLGenError("migration \"\(migration.name)\": \(change) names the column \"\(name)\", which the table "
                + "\"\(table)\" of the migration's schema lacks")
        }
        return column
    }

    private func missing(_ table: String, for change: String) -> CRUDSQLGenError {
        CRUDSQLGenError("migration \"\(migration.name)\": \(change) is to the table \"\(table)\", which the migration's schema lacks")
    }

    /// Rebuilds `table` to the migration's frozen table, its values taken from the columns of the same
    /// name or, for a renamed column, of its old name; those of the columns in `converting` by the
    /// conversion the step states.
    private func rebuild(_ table: String, renamed: [String: String], converting: [String: CRUDConversion]) throws {
        guard let frozen = migration.schema[table: table] else { throw missing(table, for: "a change") }
        guard let existing = try steps.columns(ofTable: table) else {
            throw CRUDSQLGenError("migration \"\(migration.name)\": the table \"\(table)\" does not exist; "
                + "the migrations before this one should have made it")
        }
        guard try !steps.dropRunsForeignKeyActions() else {
            throw CRUDSQLGenError("migration \"\(migration.name)\" would rebuild \"\(table)\" with foreign keys on, running their "
                + "ON DELETE actions on the rows that reference it: apply it with CRUDMigrator, which turns them off")
        }
        let schema = frozen.tableSchema
        let change = try TableChange(schema, existing: existing, renamed: renamed, dialect: dialect)
        try steps.rebuild(schema, primaryKey: schema.primaryKey, constraints: frozen.constraints,
                          sources: change.sources, converting: converting,
                          neverReuseKeys: frozen.neverReusesKeys || steps.neverReusesKeys(definition: try steps.tableDefinition(ofTable: table)),
                          indexes: try frozen.indexes.map(schema.createIndex))
        for (column, source) in zip(schema.columns, change.sources) {
            guard let source, source.typeDiffers(from: column, in: dialect),
                  dialect.valueMismatch(dialect.quote(column.name), column.type) != nil else { continue }
            if try steps.returnsRow(.valueMismatch(table: table, column: column.name, type: column.type)) {
                throw CRUDDecoderError("migration \"\(migration.name)\": a value of \"\(table)\".\"\(column.name)\" is not a \(column.type) "
                    + "and does not convert to one; nothing of the migration was applied")
            }
        }
    }
}

extension CRUDSchemaTable {
    /// The table in the shape the SQL builder writes `CREATE TABLE` from.
    var tableSchema: CRUDTableSchema {
        CRUDTableSchema(name: name, columns: columns.map(\.columnSchema), primaryKey: primaryKey.flatMap { key in columns.firstIndex { $0.name == key } },
                        relations: [])
    }
}

extension CRUDSchemaColumn {
    /// The column in the shape the SQL builder writes it from.
    var columnSchema: CRUDColumnSchema {
        CRUDColumnSchema(name: name, type: type, isOptional: isNullable)
    }
}

extension Database {
    /// Applies one frozen migration's changes, in a schema transaction of its own (a savepoint of
    /// the migrator's step). `adopting`, where the database has every table the step creates
    /// already, matching the step's schema, applies nothing.
    /// - Throws: what `CRUDMigrationApplier.apply()` throws; with `adopting`, `CRUDSchemaMismatchError` when the database has some of the tables, or
    ///   tables that differ from the step's.
    func apply(_ migration: CRUDSchemaMigration, adopting: Bool = false) throws {
        let tables = Array(Set(migration.changes.map(\.table) + migration.schema.tables.flatMap { table in
            table.constraints.compactMap { constraint -> String? in
                guard case let .foreignKey(_, _, target, _, _, _) = constraint else { return nil }
                return target
            }
        })).sorted()
        // The migrator checked the migration (`problems`) before it applied anything.
        try executor.schemaTransaction("migration \"\(migration.name)\"", tables: tables) { steps in
            if adopting {
                let created = migration.changes.compactMap { change -> CRUDSchemaTable? in
                    guard case let .createTable(table) = change else { return nil }
                    return migration.schema[table: table.name]
                }
                let present = try created.filter { try steps.columns(ofTable: $0.name) != nil }
                if !present.isEmpty {
                    let differences = try Self.differences(of: created, in: steps)
                    guard differences.isEmpty else { throw CRUDSchemaMismatchError(differences: differences) }
                    return
                }
            }
            try CRUDMigrationApplier(migration: migration, steps: steps).apply()
        }
    }
}

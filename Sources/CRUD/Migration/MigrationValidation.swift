extension CRUDSchemaMigration {
    /// What makes the migration impossible to apply as written, each said in a sentence: a schema
    /// edited by hand into a state no database can have (a key or index on a column the table lacks,
    /// a foreign key to a table the schema lacks, a name twice), or a change to a table or column
    /// the schema lacks. Empty when it can be applied.
    var problems: [String] {
        var problems: [String] = []
        var tables: Set<String> = []
        var indexes: Set<String> = []
        for table in schema.tables {
            if !tables.insert(table.name).inserted { problems.append("the schema has the table \"\(table.name)\" twice") }
            problems += table.problems(in: schema)
            for index in table.indexes where !indexes.insert(index.name).inserted {
                problems.append("the schema has two indexes named \"\(index.name)\"")
            }
        }
        for change in changes {
            if case let .createTable(table) = change {
                problems += table.problems(in: schema)
                continue
            }
            if case .dropTable = change { continue }
            guard let table = schema[table: change.table] else {
                problems.append("a change is to the table \"\(change.table)\", which the schema lacks")
                continue
            }
            let columns: [String] = switch change {
            case let .addColumn(column, _): [column.name]
            case let .renameColumn(_, new, _): [new]
            case let .alterColumn(_, to, _), let .convertColumn(_, to, _, _): [to.name]
            case let .addIndex(index, _): index.columns
            case let .addConstraint(constraint, _): constraint.columns
            default: []
            }
            for column in columns where table[column: column] == nil {
                problems.append("a change names the column \"\(column)\" of \"\(table.name)\", which the schema's table lacks")
            }
        }
        return problems
    }
}

extension CRUDSchemaTable {
    /// What makes this table impossible, within `schema`.
    func problems(in schema: CRUDSchema) -> [String] {
        var problems: [String] = []
        let place = "the table \"\(name)\""
        if columns.isEmpty { problems.append("\(place) has no columns") }
        var names: Set<String> = []
        for column in columns where !names.insert(column.name).inserted {
            problems.append("\(place) has the column \"\(column.name)\" twice")
        }
        if let primaryKey, !names.contains(primaryKey) {
            problems.append("\(place) has the primary key \"\(primaryKey)\", which is none of its columns")
        }
        for index in indexes {
            if index.columns.isEmpty { problems.append("\(place) has the index \"\(index.name)\" on no columns") }
            for column in index.columns where !names.contains(column) {
                problems.append("\(place) has the index \"\(index.name)\" on \"\(column)\", which is none of its columns")
            }
        }
        var constraintNames: Set<String> = []
        for constraint in constraints {
            if !constraintNames.insert(constraint.name).inserted {
                problems.append("\(place) has two constraints named \"\(constraint.name)\"")
            }
            for column in constraint.columns where !names.contains(column) {
                problems.append("\(place) has the constraint \"\(constraint.name)\" on \"\(column)\", which is none of its columns")
            }
            if case .unique(_, let columns) = constraint, columns.isEmpty {
                problems.append("\(place) has the unique constraint \"\(constraint.name)\" on no columns")
            }
            guard case let .foreignKey(_, columns, target, referenced, _, _) = constraint else { continue }
            guard let targetTable = schema[table: target] else {
                problems.append("\(place) has the foreign key \"\(constraint.name)\" to \"\(target)\", which the schema lacks")
                continue
            }
            if columns.count != referenced.count || columns.isEmpty {
                problems.append("\(place) has the foreign key \"\(constraint.name)\" from \(columns.count) columns to \(referenced.count)")
            }
            for column in referenced where targetTable[column: column] == nil {
                problems.append("\(place) has the foreign key \"\(constraint.name)\" to \"\(target)\".\"\(column)\", which is none of its columns")
            }
        }
        return problems
    }
}

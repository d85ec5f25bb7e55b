extension CRUDSchema {
    /// The schema `changes` leave this one in, made the way a database makes them. A change to a
    /// table or column this schema lacks changes nothing here: `CRUDSchemaMigration.problems` names
    /// those.
    func replaying(_ changes: [CRUDSchemaChange]) -> CRUDSchema {
        var schema = self
        for change in changes {
            if case let .createTable(table) = change {
                schema.tables.removeAll { $0.name == table.name }
                schema.tables.append(table)
                continue
            }
            guard let position = schema.tables.firstIndex(where: { $0.name == change.table }) else { continue }
            if case .dropTable = change {
                schema.tables.remove(at: position)
            } else {
                schema.tables[position].replay(change)
            }
        }
        return schema
    }

    /// What tells `other` from this schema, each said with where it is (`mine`: this one, `theirs`:
    /// `other`); empty when
    /// they have the same tables, each with the same columns (in any order), key, constraints and
    /// indexes.
    func differences(from other: CRUDSchema, mine: String, theirs: String) -> [String] {
        var differences: [String] = []
        for table in tables where other[table: table.name] == nil {
            differences.append("the table \"\(table.name)\": in \(mine), not in \(theirs)")
        }
        for table in other.tables {
            guard let own = self[table: table.name] else {
                differences.append("the table \"\(table.name)\": in \(theirs), not in \(mine)")
                continue
            }
            differences += own.differences(from: table, mine: mine, theirs: theirs)
        }
        return differences
    }
}

extension CRUDSchemaTable {
    /// Makes `change`, one to this table (neither a create nor a drop).
    mutating func replay(_ change: CRUDSchemaChange) {
        switch change {
        case .createTable, .dropTable:
            break
        case let .addColumn(column, _):
            columns.append(column)
        case let .dropColumn(name, _):
            columns.removeAll { $0.name == name }
        case let .renameColumn(old, new, _):
            if let position = columns.firstIndex(where: { $0.name == old }) { columns[position].name = new }
            if primaryKey == old { primaryKey = new }
        case let .alterColumn(_, to, _), let .convertColumn(_, to, _, _):
            if let position = columns.firstIndex(where: { $0.name == to.name }) { columns[position] = to }
        case let .addIndex(index, _):
            indexes.append(index)
        case let .dropIndex(index, _):
            indexes.removeAll { $0.name == index.name }
        case let .addConstraint(constraint, _):
            constraints.append(constraint)
        case let .dropConstraint(constraint, _):
            constraints.removeAll { $0.name == constraint.name }
        case let .setNeverReusesKeys(never, _):
            neverReusesKeys = never
        }
    }

    /// What tells `other`, a table of the same name, from this one; in sentences as
    /// `CRUDSchema.differences(from:mine:theirs:)` writes them.
    func differences(from other: CRUDSchemaTable, mine: String, theirs: String) -> [String] {
        let place = "\"\(name)\""
        var differences: [String] = []
        func spelled(_ column: CRUDSchemaColumn) -> String { "\(column.type)\(column.isNullable ? ", nullable" : "")" }
        for column in columns where other[column: column.name] == nil {
            differences.append("the column \(place).\"\(column.name)\": in \(mine), not in \(theirs)")
        }
        for column in other.columns {
            guard let own = self[column: column.name] else {
                differences.append("the column \(place).\"\(column.name)\": in \(theirs), not in \(mine)")
                continue
            }
            if own != column {
                differences.append("the column \(place).\"\(column.name)\": \(spelled(own)) in \(mine), \(spelled(column)) in \(theirs)")
            }
        }
        if primaryKey != other.primaryKey {
            differences.append("the primary key of \(place): \(primaryKey.map { "\"\($0)\"" } ?? "none") in \(mine), "
                + "\(other.primaryKey.map { "\"\($0)\"" } ?? "none") in \(theirs)")
        }
        for constraint in constraints where !other.constraints.contains(constraint) {
            differences.append("the constraint \(constraint) of \(place): in \(mine), not in \(theirs)")
        }
        for constraint in other.constraints where !constraints.contains(constraint) {
            differences.append("the constraint \(constraint) of \(place): in \(theirs), not in \(mine)")
        }
        for index in indexes where !other.indexes.contains(index) {
            differences.append("the index \"\(index.name)\" of \(place) on \(index.columns): in \(mine), not in \(theirs)")
        }
        for index in other.indexes where !indexes.contains(index) {
            differences.append("the index \"\(index.name)\" of \(place) on \(index.columns): in \(theirs), not in \(mine)")
        }
        if neverReusesKeys != other.neverReusesKeys {
            differences.append("whether \(place) never reuses keys: \(neverReusesKeys) in \(mine), \(other.neverReusesKeys) in \(theirs)")
        }
        return differences
    }
}

extension CRUDSchemaMigration {
    /// Where the step's frozen schema disagrees with what its changes make of `previous` (the schema
    /// the frozen step before it left, none for the first): a step whose file was edited by hand or
    /// merged badly. SQLite rebuilds a changed table to the frozen schema, so a column the schema
    /// lost would go with its values. Empty when they agree.
    func disagreements(after previous: CRUDSchema) -> [String] {
        previous.replaying(changes).differences(from: schema, mine: "its changes", theirs: "its schema")
    }
}

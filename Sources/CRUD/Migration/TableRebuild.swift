import Foundation

extension CRUDSchemaSteps {
    /// Replaces a table by one of `schema`'s columns and `constraints`, keeping its rows, where
    /// `ALTER TABLE` cannot change it in place (SQLite): a new table, every row copied (each column
    /// from its source in `sources`, a new one NULL or its type's zero value), the old table dropped
    /// and the new one renamed, then `indexes` made. With `neverReuseKeys`, where the table's integer
    /// key was never reused, the new table keeps that and the counter of keys given. A column in
    /// `converting` takes its source's values converted so.
    /// - Throws: `CRUDSQLExeError` when the database refuses a step (a NULL for a NOT NULL column, a
    ///   violated constraint).
    func rebuild(_ schema: CRUDTableSchema, primaryKey: Int?, constraints: [CRUDSchemaConstraint], sources: [CRUDDatabaseColumn?],
                 converting: [String: CRUDConversion] = [:], neverReuseKeys: Bool, indexes: [CRUDStatementPlan]) throws {
        let temporary = "crud_rebuild_" + schema.name
        let keepsKeys = neverReuseKeys && schema.isIntegerColumn(primaryKey)
        try run(.createTable(CRUDTableSchema(name: temporary, columns: schema.columns, primaryKey: primaryKey, relations: []),
                             primaryKey: primaryKey, constraints: constraints, ifNotExists: false, neverReuseKeys: keepsKeys))
        // The counter of keys given goes with the table it counts for; the copy counts from the
        // largest key left, which may be below keys of rows deleted since.
        let counter = keepsKeys ? try keyCounter(ofTable: schema.name) : nil
        let values = schema.columns.enumerated().map { index, column in
            sources[index].map { source in
                converting[column.name].map { SQLBuilder.converted(dialect.quote(source.name), by: $0) } ?? dialect.quote(source.name)
            } ?? (column.isOptional ? "NULL" : dialect.zeroValue(column.type))
        }
        try run(.copyRows(into: temporary, columns: schema.columns.map(\.name), values: values, from: schema.name))
        try run(.dropTable(schema.name))
        try run(.renameTable(temporary, to: schema.name))
        if let counter {
            try raiseKeyCounter(ofTable: schema.name, to: counter)
        }
        for index in indexes {
            try run(index)
        }
    }

    /// Whether the table of `definition` (its kept `CREATE TABLE`) never reuses keys.
    func neverReusesKeys(definition: String?) -> Bool {
        let clause = dialect.neverReusedKeyClause.trimmingCharacters(in: .whitespaces)
        return !clause.isEmpty && definition?.range(of: clause, options: .caseInsensitive) != nil
    }
}

/// One statement as the library describes it before it is SQL: the chain, the executor and schema
/// changes say what to run with one of these, and the renderer (`SQLBuilder.render(_:in:)`) writes
/// it in the database's dialect. The statements the library runs without one are transaction
/// control (the dialect's verbs, which the session runs) and the drivers' catalog reads (spelled per
/// database by the drivers, run through the session's catalog runner); all of them pass the same
/// executor, log and boundary.
@usableFromInline
enum CRUDStatementPlan {
    // MARK: Reads

    /// The query's rows, every column of the root, in its order, within `limit`.
    case select(CRUDQueryPlan, limit: CRUDQueryPlan.Limit?)
    /// The children of join `join` for every root row the query (within `limit`) selects.
    case children(CRUDQueryPlan, join: Int, limit: CRUDQueryPlan.Limit?)
    /// How many rows the query has.
    case count(CRUDQueryPlan)
    /// One row, if the query has any.
    case exists(CRUDQueryPlan)
    /// `function` over the query's rows: of the `value` column (`function(*)` without one), per
    /// value of the `groupedBy` column where given, cast to `cast`.
    case aggregate(CRUDQueryPlan, CRUDAggregate, value: Int?, groupedBy: Int?, cast: CRUDColumnType?)
    /// One column (a key) of the query's rows, unordered: the rows a write is about to change.
    case column(CRUDQueryPlan, Int)
    /// One column of the row of `schema` whose `matching` columns equal the values bound from 0.
    case columnOfRow(CRUDTableSchema, Int, matching: [Int])
    /// A statement that reads nothing, to see that the database answers.
    case ping

    // MARK: Writes

    /// `rows` rows of `columns` (every column when `nil`), row `r` bound from `r * columns.count`;
    /// returning the `returning` columns of each.
    case insert(CRUDTableSchema, columns: [Int]?, rows: Int, returning: [Int])
    /// A row of every column that, where it conflicts on `target` with a stored row, sets `updated`
    /// of that row instead (keeps it, when there are none); returning the row's `id` column and
    /// whether it was inserted, where given.
    case upsert(CRUDTableSchema, target: [Int], updated: [Int], returningID: Int?)
    /// Sets `columns` (every column when `nil`), bound from 0, of the query's rows (its filter's
    /// values bound after them); returning the `returning` columns of each.
    case update(CRUDQueryPlan, columns: [Int]?, returning: [Int])
    /// Sets `columns`, bound from 0, of the row whose `matching` columns equal the values bound
    /// after them.
    case updateRow(CRUDTableSchema, columns: [Int], matching: [Int])
    /// Deletes the query's rows, returning the `returning` columns of each.
    case delete(CRUDQueryPlan, returning: [Int])

    // MARK: Schema

    /// A table of `schema`'s columns, with `constraints`; with `neverReuseKeys`, keys that are never
    /// given twice.
    case createTable(CRUDTableSchema, primaryKey: Int?, constraints: [CRUDSchemaConstraint], ifNotExists: Bool, neverReuseKeys: Bool)
    /// Drops the table if it exists.
    case dropTable(String)
    /// Adds a column to a table; a non-optional one takes its type's zero value in existing rows.
    case addColumn(CRUDColumnSchema, table: String)
    /// Drops a column of a table.
    case dropColumn(String, table: String)
    /// Changes a table with actions, in one statement.
    case alterTable(String, actions: [CRUDAlterAction])
    /// Copies every row of `from` into `into`'s `columns`, each the SQL expression at its position in
    /// `values` (a quoted source column, or a constant).
    case copyRows(into: String, columns: [String], values: [String], from: String)
    /// Renames a table.
    case renameTable(String, to: String)
    /// An index on `columns` of `table`, if it does not exist yet where the dialect can say so; named
    /// `index_<table>_<columns>` unless `name` says otherwise.
    case createIndex(String?, table: String, columns: [CRUDColumnSchema], unique: Bool)
    /// Drops the index `name` of `table`.
    case dropIndex(String, table: String)
    /// Returns a row when `column` of `table` holds a value that is not of `type` (`valueMismatch`
    /// of the dialect, which must have one).
    case valueMismatch(table: String, column: String, type: CRUDColumnType)
    /// Returns the first row, its `key` (the table's primary key, when it has one) and `column`,
    /// whose value of type `from` the type `to` cannot hold exactly: a number with a fraction where
    /// a real becomes an integer (`SQLBuilder.losesValues(from:to:)` says which pairs can lose).
    case lossyValue(table: String, column: String, key: String?, from: CRUDColumnType, to: CRUDColumnType)

    // MARK: Given

    /// SQL written outside the library, with its values: the user's (`sql(…)`), or a definition the
    /// database's catalog gave back (an index made again after a table's rebuild).
    case raw(String, [CRUDDatabaseValue])
}

/// One action of an `ALTER TABLE`.
@usableFromInline
enum CRUDAlterAction {
    case addColumn(CRUDColumnSchema)
    case dropColumn(String)
    /// A constraint added to a table with these columns (what tells a check's names from strings).
    case addConstraint(CRUDSchemaConstraint, tableColumns: [String])
    case dropConstraint(CRUDSchemaConstraint)
    /// Drops a column's default.
    case dropDefault(String)
    /// An action the dialect spelled (a column's change of type, nullability or name).
    case spelled(String)
}

/// A statement as the renderer wrote it: its text, and the values it binds itself from position
/// `firstParameter` on (the positions before are the caller's: a model's columns).
@usableFromInline
struct CRUDStatementText {
    @usableFromInline let sql: String
    @usableFromInline let parameters: [CRUDDatabaseValue]
    @usableFromInline let firstParameter: Int

    @usableFromInline
    init(_ sql: String, _ parameters: [CRUDDatabaseValue] = [], firstParameter: Int = 0) {
        self.sql = sql
        self.parameters = parameters
        self.firstParameter = firstParameter
    }
}

extension SQLBuilder {
    /// The plan's SQL in the dialect, with the values it binds itself.
    /// - Throws: `CRUDSQLGenError` for a mistake in a query's chain, a key path that names no
    ///   column, nothing to set, or a statement the dialect has no spelling for.
    static func render(_ plan: CRUDStatementPlan, in dialect: any CRUDDialect) throws -> CRUDStatementText {
        switch plan {
        case let .select(query, limit):
            try query.validate()
            var builder = SQLBuilder(dialect: dialect)
            return CRUDStatementText(try builder.select(query, limit: limit), builder.parameters)
        case let .children(query, join, limit):
            try query.validate()
            var builder = SQLBuilder(dialect: dialect)
            return CRUDStatementText(try builder.children(query, join: join, limit: limit), builder.parameters)
        case let .count(query):
            try query.validate()
            var builder = SQLBuilder(dialect: dialect)
            return CRUDStatementText(try builder.count(query), builder.parameters)
        case let .exists(query):
            try query.validate()
            var builder = SQLBuilder(dialect: dialect)
            return CRUDStatementText(try builder.rootQuery(query, selecting: "1", limit: query.firstLimit, ordered: false), builder.parameters)
        case let .aggregate(query, function, value, key, cast):
            try query.validate()
            var builder = SQLBuilder(dialect: dialect)
            let schema = query.root.crudSchema
            let columns = [key, value].compactMap { $0 }.map { dialect.quote(schema.columns[$0].name) }
            let sql = try builder.aggregate(query, function.rawValue, columns: columns, grouped: key != nil, cast: cast.map(dialect.castType))
            return CRUDStatementText(sql, builder.parameters)
        case let .column(query, column):
            try query.validate()
            var builder = SQLBuilder(dialect: dialect)
            return CRUDStatementText(try builder.rootColumn(query, column, of: query.root.crudSchema), builder.parameters)
        case let .columnOfRow(schema, column, key):
            return CRUDStatementText(SQLBuilder(dialect: dialect).select(column, of: schema, matching: key))
        case .ping:
            return CRUDStatementText(SQLBuilder.ping)
        case let .insert(schema, columns, rows, returning):
            return CRUDStatementText(SQLBuilder(dialect: dialect).insert(into: schema, columns: columns ?? Array(schema.columns.indices), rows: rows,
                                                                        returning: returning))
        case let .upsert(schema, target, updated, id):
            let builder = SQLBuilder(dialect: dialect)
            guard let clause = dialect.upsertClause(target: target.map { dialect.quote(schema.columns[$0].name) },
                                                    update: updated.map { dialect.quote(schema.columns[$0].name) }) else {
                throw CRUDSQLGenError("upsert: \(dialect.name) has no conflict clause that names a target")
            }
            var returning = ""
            if let id, let inserted = dialect.upsertInsertedFlag {
                returning = builder.upsertReturning(schema, id: id, insertedFlag: inserted)
            }
            return CRUDStatementText(builder.insert(into: schema, columns: Array(schema.columns.indices)) + clause + returning)
        case let .update(query, columns, returning):
            try query.validate()
            let schema = query.root.crudSchema
            let assigned = columns ?? Array(schema.columns.indices)
            guard !assigned.isEmpty else {
                throw CRUDSQLGenError("update: every column of \(query.root) is ignored, so there is nothing to set")
            }
            var builder = SQLBuilder(dialect: dialect, firstParameter: assigned.count)
            let sql = try builder.update(schema, columns: assigned, filter: query.filter, root: query.root) + builder.returningClause(schema, returning)
            return CRUDStatementText(sql, builder.parameters, firstParameter: assigned.count)
        case let .updateRow(schema, columns, key):
            return CRUDStatementText(SQLBuilder(dialect: dialect).update(schema, columns: columns, matching: key))
        case let .delete(query, returning):
            try query.validate()
            let schema = query.root.crudSchema
            var builder = SQLBuilder(dialect: dialect)
            let sql = try builder.delete(schema, filter: query.filter, root: query.root) + builder.returningClause(schema, returning)
            return CRUDStatementText(sql, builder.parameters)
        case let .createTable(schema, primaryKey, constraints, ifNotExists, neverReuseKeys):
            return CRUDStatementText(try SQLBuilder(dialect: dialect).createTable(schema, primaryKey: primaryKey, constraints: constraints,
                                                                             ifNotExists: ifNotExists, neverReuseKeys: neverReuseKeys))
        case let .dropTable(table):
            return CRUDStatementText(SQLBuilder(dialect: dialect).dropTable(table))
        case let .addColumn(column, table):
            return CRUDStatementText(SQLBuilder(dialect: dialect).addColumn(column, to: table))
        case let .dropColumn(column, table):
            return CRUDStatementText(SQLBuilder(dialect: dialect).dropColumn(column, from: table))
        case let .alterTable(table, actions):
            let builder = SQLBuilder(dialect: dialect)
            return CRUDStatementText(builder.alterTable(table, actions: try actions.map { action in
                switch action {
                case let .addColumn(column): builder.addColumnAction(column)
                case let .dropColumn(column): builder.dropColumnAction(column)
                case let .addConstraint(constraint, columns): try builder.addConstraintAction(constraint, tableColumns: columns)
                case let .dropConstraint(constraint): builder.dropConstraintAction(constraint)
                case let .dropDefault(column): builder.dropDefaultAction(column)
                case let .spelled(sql): sql
                }
            }))
        case let .copyRows(target, columns, values, source):
            return CRUDStatementText(SQLBuilder(dialect: dialect).copyRows(into: target, columns: columns, values: values, from: source))
        case let .renameTable(table, name):
            return CRUDStatementText(SQLBuilder(dialect: dialect).renameTable(table, to: name))
        case let .createIndex(name, table, columns, unique):
            return CRUDStatementText(SQLBuilder(dialect: dialect).createIndex(name, on: table, columns: columns, unique: unique))
        case let .dropIndex(name, table):
            return CRUDStatementText(SQLBuilder(dialect: dialect).dropIndex(name, on: table))
        case let .valueMismatch(table, column, type):
            return CRUDStatementText(try SQLBuilder(dialect: dialect).valueMismatch(table, column: column, type: type))
        case let .lossyValue(table, column, key, from, to):
            return CRUDStatementText(try SQLBuilder(dialect: dialect).lossyValue(table, column: column, key: key, from: from, to: to))
        case let .raw(sql, parameters):
            return CRUDStatementText(sql, parameters)
        }
    }
}

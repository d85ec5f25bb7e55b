/// Writes the SQL of a query plan in a dialect, collecting the values to bind. Identifiers are always
/// quoted and values are always parameters.
///
/// Joins run as one extra query each: the children of every root row the root query selects, found
/// through `key IN (root query)`, with the key added as a last column so rows can be grouped by
/// parent. A filter that names joined types is evaluated in a correlated `EXISTS` over `LEFT JOIN`s,
/// so a root row matches when some combination of its joined rows (or none) satisfies it, and
/// children are filtered by the same condition.
struct SQLBuilder {
    let dialect: any CRUDDialect
    /// Parameters before this builder's own (the model columns of an insert or update).
    let firstParameter: Int
    private(set) var parameters: [CRUDDatabaseValue] = []

    init(dialect: any CRUDDialect, firstParameter: Int = 0) {
        self.dialect = dialect
        self.firstParameter = firstParameter
    }

    /// Placeholders of the parameters a query binds itself (the model's columns), in order.
    func placeholders(_ count: Int) -> [String] {
        (0 ..< count).map(dialect.placeholder)
    }

    private mutating func parameter(_ value: CRUDDatabaseValue) -> String {
        parameters.append(value)
        return dialect.placeholder(firstParameter + parameters.count - 1)
    }

    private func quote(_ identifier: String) -> String {
        dialect.quote(identifier)
    }

    private func qualified(_ alias: String?, _ column: String) -> String {
        (alias.map { $0 + "." } ?? "") + quote(column)
    }

    /// Every column of a table, qualified by an alias, in table order.
    func columnList(_ schema: CRUDTableSchema, alias: String?) -> String {
        schema.columns.map { qualified(alias, $0.name) }.joined(separator: ", ")
    }

    // MARK: - Scopes

    /// The model types visible to a filter, with the alias each is reached by.
    struct Scope {
        var entries: [(model: any CRUDModel.Type, alias: String?)] = []

        func alias(of model: any CRUDModel.Type) -> String?? {
            entries.first { $0.model == model }.map(\.alias)
        }

        mutating func add(_ model: any CRUDModel.Type, _ alias: String?) {
            entries.append((model, alias))
        }
    }

    static func childAlias(_ join: Int) -> String { "j\(join + 1)" }
    static func pivotAlias(_ join: Int) -> String { "p\(join + 1)" }

    // MARK: - Filters

    private mutating func column(_ reference: CRUDColumnReference, in scope: Scope) throws -> String {
        guard let alias = scope.alias(of: reference.model) else {
            throw CRUDSQLGenError("where: \(reference.model) is not part of this query; a condition can name only the table and the types joined to it")
        }
        guard let index = reference.index else {
            throw CRUDSQLGenError("where: \(reference.written) names no column of \(reference.model)")
        }
        let column = qualified(alias, reference.model.crudSchema.columns[index].name)
        return reference.function.map { dialect.function($0, column) } ?? column
    }

    /// A parameter for a value compared with `reference`, inside the reference's function where that
    /// applies to values too (case-insensitive comparison).
    private mutating func value(_ value: CRUDDatabaseValue, for reference: CRUDColumnReference) -> String {
        let placeholder = parameter(value)
        guard let function = reference.function, function.appliesToValue else { return placeholder }
        return dialect.function(function, placeholder)
    }

    mutating func render(_ node: CRUDBooleanExpression.Node, in scope: Scope) throws -> String {
        switch node {
        case let .compare(reference, operation, value):
            let target = try column(reference, in: scope)
            if value == .null {
                switch operation {
                case .equal: return target + " IS NULL"
                case .notEqual: return target + " IS NOT NULL"
                default: throw CRUDSQLGenError("where: \(reference.written) \(operation.rawValue) nil compares with NULL, which is never true; use == nil or != nil")
                }
            }
            return "\(target) \(operation.rawValue) \(self.value(value, for: reference))"
        case let .contained(reference, values, negated):
            let target = try column(reference, in: scope)
            let present = values.filter { $0 != .null }
            let includesNull = present.count != values.count
            var parts: [String] = []
            if !present.isEmpty {
                parts.append("\(target) \(negated ? "NOT IN" : "IN") (\(present.map { value($0, for: reference) }.joined(separator: ", ")))")
            }
            if includesNull { parts.append("\(target) \(negated ? "IS NOT NULL" : "IS NULL")") }
            if parts.isEmpty { return negated ? "1 = 1" : "1 = 0" }
            return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: negated ? " AND " : " OR ") + ")"
        case let .like(reference, pattern, text, negated):
            let target = try column(reference, in: scope)
            return "\(target) \(negated ? "NOT LIKE" : "LIKE") \(value(.text(pattern.pattern(text)), for: reference))" + dialect.likeEscapeClause
        case let .and(left, right):
            return "(\(try render(left, in: scope)) AND \(try render(right, in: scope)))"
        case let .or(left, right):
            return "(\(try render(left, in: scope)) OR \(try render(right, in: scope)))"
        case let .not(inner):
            return "NOT (\(try render(inner, in: scope)))"
        case let .invalid(error):
            throw error
        }
    }

    /// The joins a filter names (through their child or pivot type), and a check that it names
    /// nothing else.
    private func joinsNamed(by filter: CRUDBooleanExpression, in plan: CRUDQueryPlan) throws -> [Int] {
        var named: Set<Int> = []
        for model in filter.referencedTypes where model != plan.root {
            guard let join = plan.joins.firstIndex(where: { $0.model == model || $0.pivot?.model == model }) else {
                throw CRUDSQLGenError("where: \(model) is not part of this query; a condition can name only the table and the types joined to it")
            }
            named.insert(join)
        }
        return named.sorted()
    }

    /// `LEFT JOIN`s that bring a join's rows (and pivot rows) next to the root row `t0`.
    private func leftJoins(_ joins: [Int], of plan: CRUDQueryPlan, into scope: inout Scope) -> String {
        let root = plan.root.crudSchema
        var sql = ""
        for index in joins {
            let join = plan.joins[index]
            let child = join.model.crudSchema
            let childAlias = Self.childAlias(index)
            let rootKey = qualified("t0", root.columns[join.parentColumn].name)
            if let pivot = join.pivot {
                let pivotSchema = pivot.model.crudSchema
                let pivotAlias = Self.pivotAlias(index)
                sql += " LEFT JOIN \(quote(pivotSchema.name)) AS \(pivotAlias) ON \(qualified(pivotAlias, pivotSchema.columns[pivot.parentColumn].name)) = \(rootKey)"
                sql += " LEFT JOIN \(quote(child.name)) AS \(childAlias) ON \(qualified(childAlias, child.columns[join.childColumn].name)) = \(qualified(pivotAlias, pivotSchema.columns[pivot.childColumn].name))"
                scope.add(pivot.model, pivotAlias)
            } else {
                sql += " LEFT JOIN \(quote(child.name)) AS \(childAlias) ON \(qualified(childAlias, child.columns[join.childColumn].name)) = \(rootKey)"
            }
            scope.add(join.model, childAlias)
        }
        return sql
    }

    /// The root query's condition on `t0`.
    private mutating func rootCondition(_ filter: CRUDBooleanExpression, of plan: CRUDQueryPlan) throws -> String {
        var scope = Scope()
        scope.add(plan.root, "t0")
        let joins = try joinsNamed(by: filter, in: plan)
        if joins.isEmpty { return try render(filter.node, in: scope) }
        let joined = leftJoins(joins, of: plan, into: &scope)
        return "EXISTS (SELECT 1 FROM (SELECT 1) AS crud_one\(joined) WHERE \(try render(filter.node, in: scope)))"
    }

    // MARK: - Queries

    private mutating func orderClause(_ order: [CRUDQueryPlan.Order], of schema: CRUDTableSchema, alias: String) -> String {
        guard !order.isEmpty else { return "" }
        return " ORDER BY " + order.map { columnOrder(schema.columns[$0.column], alias: alias, descending: $0.descending) }.joined(separator: ", ")
    }

    /// Where a join's children come from (their table as `alias`, joined with the junction table as
    /// `pivotAlias` if there is one) and the column holding the parent key each belongs to.
    private func childSource(_ join: CRUDQueryPlan.Join, alias: String, pivotAlias: String) -> (from: String, key: String) {
        let child = join.model.crudSchema
        let from = "\(quote(child.name)) AS \(alias)"
        guard let pivot = join.pivot else { return (from, qualified(alias, child.columns[join.childColumn].name)) }
        let pivotSchema = pivot.model.crudSchema
        return (from + " JOIN \(quote(pivotSchema.name)) AS \(pivotAlias) ON \(qualified(pivotAlias, pivotSchema.columns[pivot.childColumn].name))"
                    + " = \(qualified(alias, child.columns[join.childColumn].name))",
                qualified(pivotAlias, pivotSchema.columns[pivot.parentColumn].name))
    }

    /// One order term by a column.
    private func columnOrder(_ column: CRUDColumnSchema, alias: String, descending: Bool) -> String {
        let text = qualified(alias, column.name) + (descending ? " DESC" : " ASC")
        // One NULL order on every backend: first when ascending, last when descending.
        return column.isOptional ? text + dialect.nullOrdering(descending: descending) : text
    }

    /// The root rows' order, where a term may be by a join's children (`orderParents`): the
    /// smallest (ascending) or largest (descending) value of each root row's children, read by a
    /// subquery, NULL for a root row without any.
    private mutating func rootOrderClause(_ plan: CRUDQueryPlan) -> String {
        let root = plan.root.crudSchema
        guard plan.order.contains(where: { $0.joined != nil }) else { return orderClause(plan.order, of: root, alias: "t0") }
        let terms = plan.order.enumerated().map { index, term -> String in
            guard let joined = term.joined else { return columnOrder(root.columns[term.column], alias: "t0", descending: term.descending) }
            let join = plan.joins[joined]
            let child = join.model.crudSchema
            let alias = "o\(index)"
            let (from, key) = childSource(join, alias: alias, pivotAlias: alias + "p")
            let value = "(SELECT \(term.descending ? "MAX" : "MIN")(\(qualified(alias, child.columns[term.column].name))) FROM \(from)"
                + " WHERE \(key) = \(qualified("t0", root.columns[join.parentColumn].name)))"
            return value + (term.descending ? " DESC" : " ASC") + dialect.nullOrdering(descending: term.descending)
        }
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    private mutating func limitClause(_ limit: CRUDQueryPlan.Limit?) -> String {
        guard let limit, limit.max != nil || limit.skip > 0 else { return "" }
        let max = limit.max.map { parameter(.integer(Int64($0))) }
        let skip = limit.skip > 0 ? parameter(.integer(Int64(limit.skip))) : nil
        return " " + dialect.limitClause(max: max, skip: skip)
    }

    /// The root query: `SELECT <selection> FROM root AS t0 WHERE … ORDER BY … LIMIT …`.
    mutating func rootQuery(_ plan: CRUDQueryPlan, selecting selection: String, limit: CRUDQueryPlan.Limit?, ordered: Bool = true) throws -> String {
        let root = plan.root.crudSchema
        var sql = "SELECT \(selection) FROM \(quote(root.name)) AS t0"
        if let filter = plan.filter {
            sql += " WHERE " + (try rootCondition(filter, of: plan))
        }
        if ordered || limit != nil { sql += rootOrderClause(plan) }
        sql += limitClause(limit)
        return sql
    }

    /// The root rows' columns in table order.
    /// The root query's values of one column of the root model (its key), unordered: the rows a
    /// write changes, selected first where it cannot return them.
    mutating func rootColumn(_ plan: CRUDQueryPlan, _ column: Int, of schema: CRUDTableSchema) throws -> String {
        try rootQuery(plan, selecting: "t0." + quote(schema.columns[column].name), limit: nil, ordered: false)
    }

    /// `function` over the root query's rows (of the `columns` it is given, quoted: the value's
    /// last, after the grouping key's when `grouped`), `CAST` to `cast` where given; `function(*)`
    /// without a value column.
    mutating func aggregate(_ plan: CRUDQueryPlan, _ function: String, columns: [String], grouped: Bool, cast: String?) throws -> String {
        // The inner query names its columns, so that a key and a value of one column do not clash.
        let selected = columns.enumerated().map { "t0.\($1) AS crud_\($0)" }.joined(separator: ", ")
        let valued = columns.count > (grouped ? 1 : 0)
        var value = valued ? "\(function)(crud_rows.crud_\(columns.count - 1))" : "\(function)(*)"
        if valued, let cast { value = "CAST(\(value) AS \(cast))" }
        let rows = try rootQuery(plan, selecting: selected, limit: plan.limit, ordered: false)
        return grouped
            ? "SELECT crud_rows.crud_0, \(value) FROM (\(rows)) AS crud_rows GROUP BY crud_rows.crud_0"
            : "SELECT \(value) FROM (\(rows)) AS crud_rows"
    }

    mutating func select(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?) throws -> String {
        let rows = try rootQuery(plan, selecting: columnList(plan.root.crudSchema, alias: "t0"), limit: limit)
        return plan.rowLock.map { rows + dialect.rowLock($0) } ?? rows
    }

    /// How many rows `select` returns.
    mutating func count(_ plan: CRUDQueryPlan) throws -> String {
        "SELECT COUNT(*) FROM (" + (try rootQuery(plan, selecting: "1", limit: plan.limit, ordered: false)) + ") AS crud_count"
    }

    /// The children of join `index` for every root row, in the join's order; through a junction
    /// table each row ends with the parent key it belongs to (otherwise the child's own column holds it).
    mutating func children(_ plan: CRUDQueryPlan, join index: Int, limit: CRUDQueryPlan.Limit?) throws -> String {
        let join = plan.joins[index]
        let root = plan.root.crudSchema
        let child = join.model.crudSchema
        let childAlias = Self.childAlias(index)
        var scope = Scope()
        let (from, key) = childSource(join, alias: childAlias, pivotAlias: Self.pivotAlias(index))
        if let pivot = join.pivot { scope.add(pivot.model, Self.pivotAlias(index)) }
        scope.add(join.model, childAlias)
        let parents = dialect.inSubquery(try rootQuery(plan, selecting: qualified("t0", root.columns[join.parentColumn].name), limit: limit),
                                         column: quote(root.columns[join.parentColumn].name))
        let columns = columnList(child, alias: childAlias) + (join.pivot == nil ? "" : ", " + key)
        var sql = "SELECT \(columns) FROM \(from) WHERE \(key) IN (\(parents))"
        if let filter = plan.filter {
            let named = try joinsNamed(by: filter, in: plan)
            if !named.isEmpty {
                var inner = Scope()
                inner.add(plan.root, "t0")
                inner.entries += scope.entries
                let others = leftJoins(named.filter { $0 != index }, of: plan, into: &inner)
                let condition = try render(filter.node, in: inner)
                sql += " AND EXISTS (SELECT 1 FROM \(quote(root.name)) AS t0\(others) WHERE \(qualified("t0", root.columns[join.parentColumn].name)) = \(key) AND \(condition))"
            }
        }
        sql += orderClause(join.order, of: child, alias: childAlias)
        return sql
    }

    /// A statement every database answers without reading a table.
    static let ping = "SELECT 1"

    // MARK: - Writes

    /// `INSERT` of `rows` rows of the given columns, row `r` bound at positions from
    /// `r * columns.count` on; optionally returning columns of the inserted rows.
    func insert(into schema: CRUDTableSchema, columns: [Int], rows: Int = 1, returning: [Int] = []) -> String {
        var sql: String
        if columns.isEmpty {
            sql = "INSERT INTO \(quote(schema.name))" + dialect.defaultValuesClause
        } else {
            let names = columns.map { quote(schema.columns[$0].name) }.joined(separator: ", ")
            let tuples = (0 ..< rows).map { row in
                "(" + (0 ..< columns.count).map { dialect.placeholder(row * columns.count + $0) }.joined(separator: ", ") + ")"
            }
            sql = "INSERT INTO \(quote(schema.name)) (\(names)) VALUES \(tuples.joined(separator: ", "))"
        }
        return sql + returningClause(schema, returning)
    }

    /// What an upsert returns for observers: the row's id and the dialect's flag of whether it was
    /// inserted.
    func upsertReturning(_ schema: CRUDTableSchema, id: Int, insertedFlag: String) -> String {
        " RETURNING \(quote(schema.columns[id].name)), \(insertedFlag)"
    }

    func returningClause(_ schema: CRUDTableSchema, _ columns: [Int]) -> String {
        columns.isEmpty ? "" : " RETURNING " + columns.map { quote(schema.columns[$0].name) }.joined(separator: ", ")
    }

    /// `UPDATE` of the given columns, bound at positions `0 ..< columns.count`, then the filter's.
    mutating func update(_ schema: CRUDTableSchema, columns: [Int], filter: CRUDBooleanExpression?, root: any CRUDModel.Type) throws -> String {
        let assignments = zip(columns, placeholders(columns.count)).map { quote(schema.columns[$0].name) + " = " + $1 }
        return "UPDATE \(quote(schema.name)) SET \(assignments.joined(separator: ", "))" + (try whereClause(filter, root: root))
    }

    /// `UPDATE` of the given columns of the row whose `key` columns equal the values bound after
    /// them: the columns at positions `0 ..< columns.count`, the key from there on.
    func update(_ schema: CRUDTableSchema, columns: [Int], matching key: [Int]) -> String {
        let assignments = zip(columns, placeholders(columns.count)).map { quote(schema.columns[$0].name) + " = " + $1 }
        return "UPDATE \(quote(schema.name)) SET \(assignments.joined(separator: ", "))" + keyCondition(schema, key, from: columns.count)
    }

    /// `SELECT` of one column of the row whose `key` columns equal the values bound from position 0.
    func select(_ column: Int, of schema: CRUDTableSchema, matching key: [Int]) -> String {
        "SELECT \(quote(schema.columns[column].name)) FROM \(quote(schema.name))" + keyCondition(schema, key, from: 0)
    }

    private func keyCondition(_ schema: CRUDTableSchema, _ key: [Int], from position: Int) -> String {
        " WHERE " + key.enumerated().map { quote(schema.columns[$1].name) + " = " + dialect.placeholder(position + $0) }.joined(separator: " AND ")
    }

    mutating func delete(_ schema: CRUDTableSchema, filter: CRUDBooleanExpression?, root: any CRUDModel.Type) throws -> String {
        "DELETE FROM \(quote(schema.name))" + (try whereClause(filter, root: root))
    }

    private mutating func whereClause(_ filter: CRUDBooleanExpression?, root: any CRUDModel.Type) throws -> String {
        guard let filter else { return "" }
        var scope = Scope()
        scope.add(root, nil)
        return " WHERE " + (try render(filter.node, in: scope))
    }

    // MARK: - Schema

    /// `CREATE TABLE`; with `neverReuseKeys`, the primary key (an integer) gets the dialect's
    /// `neverReusedKeyClause`.
    /// - Throws: `CRUDSQLGenError` for a constraint the dialect cannot carry out.
    func createTable(_ schema: CRUDTableSchema, primaryKey: Int?, constraints: [CRUDSchemaConstraint] = [], ifNotExists: Bool,
                     neverReuseKeys: Bool = false) throws -> String {
        let columns = schema.columns.enumerated().map { index, column in
            columnDefinition(column, isPrimaryKey: index == primaryKey, neverReused: neverReuseKeys)
        }
        let definitions = try constraints.map { try constraint($0, tableColumns: schema.columns.map(\.name)) }
        return "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(quote(schema.name)) (\((columns + definitions).joined(separator: ", ")))"
            + dialect.tableOptions
    }

    func columnDefinition(_ column: CRUDColumnSchema, isPrimaryKey: Bool, neverReused: Bool = false) -> String {
        var definition = quote(column.name) + " " + (isPrimaryKey ? dialect.primaryKeyColumnType(column.type) : dialect.columnType(column.type))
        if isPrimaryKey { definition += " PRIMARY KEY" + (neverReused ? dialect.neverReusedKeyClause : "") }
        if !column.isOptional { definition += " NOT NULL" }
        return definition
    }

    /// Adds a column to an existing table; a non-optional one gets its type's zero value in the
    /// rows already there.
    func addColumn(_ column: CRUDColumnSchema, to table: String) -> String {
        "ALTER TABLE \(quote(table)) " + addColumnAction(column)
    }

    func dropColumn(_ column: String, from table: String) -> String {
        "ALTER TABLE \(quote(table)) " + dropColumnAction(column)
    }

    func dropColumnAction(_ column: String) -> String {
        "DROP COLUMN \(quote(column))"
    }

    /// `ADD COLUMN`, a non-optional one filled with its type's zero value.
    func addColumnAction(_ column: CRUDColumnSchema) -> String {
        "ADD COLUMN \(columnDefinition(column, isPrimaryKey: false))" + (column.isOptional ? "" : " DEFAULT " + dialect.zeroValue(column.type))
    }

    /// A name CRUD gives (a constraint's, an index's) as `dialect`'s database keeps it: cut to its
    /// identifier limit as `identifier(_:fitting:)` does. What creates, drops and the catalog checks
    /// compare by.
    static func keptName(_ name: String, in dialect: any CRUDDialect) -> String {
        identifier(name, fitting: dialect.maxIdentifierBytes)
    }

    /// A constraint's definition, for `CREATE TABLE` or `ADD`, on a table with `tableColumns`.
    /// - Throws: `CRUDSQLGenError` for a foreign key action the database accepts but does not carry
    ///   out, and for a check that names a column in double quotes where the database reads them as
    ///   a string.
    func constraint(_ constraint: CRUDSchemaConstraint, tableColumns: [String]) throws -> String {
        let name = "CONSTRAINT \(quote(Self.keptName(constraint.name, in: dialect))) "
        switch constraint {
        case let .unique(_, columns):
            return name + "UNIQUE (\(columns.map(quote).joined(separator: ", ")))"
        case let .foreignKey(_, columns, table, referenced, onDelete, onUpdate):
            if !dialect.supportsSetDefaultAction, onDelete == .setDefault || onUpdate == .setDefault {
                throw CRUDSQLGenError("the foreign key \"\(constraint.name)\" uses .setDefault, which \(dialect.name) accepts but does not carry out "
                    + "(InnoDB then refuses the delete or update, error 1451); use .setNull, .cascade or .restrict")
            }
            return name + "FOREIGN KEY (\(columns.map(quote).joined(separator: ", "))) REFERENCES \(quote(table)) "
                + "(\(referenced.map(quote).joined(separator: ", "))) ON DELETE \(onDelete.rawValue) ON UPDATE \(onUpdate.rawValue)"
        case let .check(_, condition):
            // The condition is SQL of the schema, written by its author, not a value.
            try refuseStringForColumn(in: condition, of: constraint, tableColumns: tableColumns)
            return name + "CHECK (\(condition))"
        case let .typedCheck(_, condition):
            return name + "CHECK (\(requoted(condition)))"
        }
    }

    /// Refuses a check `condition` that writes one of `tableColumns` in double quotes where the
    /// database does not quote names so (MySQL reads `"wheels"` as the string 'wheels', and the check
    /// then fails every insert, or passes every one).
    private func refuseStringForColumn(in condition: String, of constraint: CRUDSchemaConstraint, tableColumns: [String]) throws {
        guard dialect.quote("x") != "\"x\"" else { return }
        let columns = Set(tableColumns.map { $0.lowercased() })
        guard let column = SQLNames.doubleQuoted(in: condition).first(where: { columns.contains($0.lowercased()) }) else { return }
        throw CRUDSQLGenError("the check \"\(constraint.name)\" writes the column \(column) as \"\(column)\", which \(dialect.name) reads as a "
            + "string, not a name: write it as \(dialect.quote(column)) on \(dialect.name), or unquoted (\(column)) to run on every backend")
    }

    /// `ALTER TABLE "table" ` and the actions.
    func alterTable(_ table: String, actions: [String]) -> String {
        "ALTER TABLE \(quote(table)) " + actions.joined(separator: ", ")
    }

    /// The action that adds a constraint.
    /// - Throws: `CRUDSQLGenError` for a constraint the dialect cannot carry out.
    func addConstraintAction(_ constraint: CRUDSchemaConstraint, tableColumns: [String]) throws -> String {
        "ADD \(try self.constraint(constraint, tableColumns: tableColumns))"
    }

    func dropConstraintAction(_ constraint: CRUDSchemaConstraint) -> String {
        dialect.dropConstraint(quote(Self.keptName(constraint.name, in: dialect)), constraint)
    }

    func dropDefaultAction(_ column: String) -> String {
        "ALTER COLUMN \(quote(column)) DROP DEFAULT"
    }

    /// A query that returns a row when `column` holds a value not of `type`.
    /// - Throws: `CRUDSQLGenError` where the dialect cannot tell.
    func valueMismatch(_ table: String, column: String, type: CRUDColumnType) throws -> String {
        guard let mismatch = dialect.valueMismatch(quote(column), type) else {
            throw CRUDSQLGenError("\(dialect.name) cannot tell which values of a column are not of a type")
        }
        return "SELECT 1 FROM \(quote(table)) WHERE \(quote(column)) IS NOT NULL AND \(mismatch) LIMIT 1"
    }

    /// Whether converting a value of `from` to `to` can lose part of it without the database saying
    /// so: a real number's fraction, which PostgreSQL's and MySQL's conversion to an integer rounds away.
    static func losesValues(from: CRUDColumnType, to: CRUDColumnType) -> Bool {
        if case .real = from, case .integer = to { return true }
        return false
    }

    /// The value of `quoted`, a column, converted `by` a step's stated rule, where the database copies
    /// rows rather than converting a column (SQLite's rebuild).
    static func converted(_ quoted: String, by conversion: CRUDConversion) -> String {
        switch conversion {
        case .rounding: "ROUND(\(quoted))"
        }
    }

    /// A query of the first row whose `column`, of type `from`, `to` cannot hold exactly: its `key`
    /// (or NULL without one), then the value.
    /// - Throws: `CRUDSQLGenError` for a pair of types `losesValues` does not name.
    func lossyValue(_ table: String, column: String, key: String?, from: CRUDColumnType, to: CRUDColumnType) throws -> String {
        guard Self.losesValues(from: from, to: to) else {
            throw CRUDSQLGenError("no values of a \(from) column are lost as \(to)")
        }
        let value = quote(column)
        return "SELECT \(key.map(quote) ?? "NULL"), \(value) FROM \(quote(table)) "
            + "WHERE \(value) IS NOT NULL AND CAST(\(value) AS \(dialect.castType(to))) <> \(value) LIMIT 1"
    }

    /// Copies every row of `source` into `target`'s `columns`, each the expression in `values` at
    /// its position (a source column, quoted, or a constant).
    func copyRows(into target: String, columns: [String], values: [String], from source: String) -> String {
        "INSERT INTO \(quote(target)) (\(columns.map(quote).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quote(source))"
    }

    func renameTable(_ table: String, to name: String) -> String {
        "ALTER TABLE \(quote(table)) RENAME TO \(quote(name))"
    }

    func dropTable(_ table: String) -> String {
        "DROP TABLE IF EXISTS \(quote(table))"
    }

    func createIndex(_ name: String?, on table: String, columns: [CRUDColumnSchema], unique: Bool) -> String {
        let indexName = Self.keptName(name ?? "index_" + table + "_" + columns.map(\.name).joined(separator: "_"), in: dialect)
        let list = columns.map { dialect.indexColumn(quote($0.name), type: $0.type, unique: unique) }
        return "CREATE \(unique ? "UNIQUE " : "")INDEX \(dialect.createIndexIfNotExists ? "IF NOT EXISTS " : "")\(quote(indexName)) ON \(quote(table)) (\(list.joined(separator: ", ")))"
    }

    func dropIndex(_ name: String, on table: String) -> String {
        dialect.dropIndex(quote(Self.keptName(name, in: dialect)), on: quote(table))
    }

    /// `name`, or where it is longer than `limit` bytes, its longest prefix that leaves room for `_`
    /// and 16 hex digits of a hash of the whole name: names that share a long prefix stay distinct,
    /// and the same name always gives the same identifier.
    static func identifier(_ name: String, fitting limit: Int?) -> String {
        guard let limit, name.utf8.count > limit else { return name }
        // FNV-1a over the UTF-8 bytes: stable across runs and platforms, unlike `Hasher`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        let suffix = "_" + String(repeating: "0", count: 16 - hex.count) + hex
        var prefix = ""
        for character in name {
            guard prefix.utf8.count + character.utf8.count + suffix.utf8.count <= limit else { break }
            prefix.append(character)
        }
        return prefix + suffix
    }
}

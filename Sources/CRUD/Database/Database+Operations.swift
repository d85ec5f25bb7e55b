/// What `create` does when the table exists or joined tables are involved.
public struct TableCreatePolicy: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// An existing table gets the model's missing columns added and columns the model lacks
    /// dropped, with their data: a property renamed or removed by mistake loses that column's
    /// values for good. The other columns' data stays; a column whose type changed is left as it is.
    public static let reconcileTable = TableCreatePolicy(rawValue: 1 << 0)
    /// Joined types' tables are not created.
    public static let shallow = TableCreatePolicy(rawValue: 1 << 1)
    /// The table is dropped first.
    public static let dropTable = TableCreatePolicy(rawValue: 1 << 2)
    /// A key the database makes (an integer primary key, declared `Int?` and left out of inserts) is
    /// never given again once its row is deleted, so that the key of a deleted resource never names
    /// another: SQLite's `AUTOINCREMENT`. Without it SQLite gives the largest key plus one, which
    /// reuses the keys of the last rows after they are deleted. PostgreSQL's identity columns and
    /// MySQL's `AUTO_INCREMENT` never reuse keys, with or without it. Applies to the tables `create`
    /// makes whose primary key is an integer; `alterTable` keeps it.
    public static let neverReuseKeys = TableCreatePolicy(rawValue: 1 << 3)
    /// Create the table if it is missing; leave an existing one as it is.
    public static let defaultPolicy: TableCreatePolicy = []
}

/// Values for the `?` parameters of `sql(_:bindings:)`, in order: `["Lars", 12, nil]` or
/// `[.uuid(id), .date(now)]`.
public typealias Bindings = [CRUDDatabaseValue]

extension Database {
    /// Creates the table of `type`, and unless `.shallow` the tables of its joined types.
    /// - Parameters:
    ///   - type: the model whose table to create.
    ///   - primaryKey: the primary-key column; by default the property named `id`, or none.
    ///     Joined types' tables always use their `id`.
    ///   - policy: what to do with a table that exists already, and whether joined types' tables are
    ///     created too.
    /// - Throws: `CRUDSQLGenError` when `primaryKey` names no column, or `.neverReuseKeys` is asked
    ///   of a model whose primary key is not an integer; `CRUDSQLExeError`.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func create<A: CRUDModel>(_ type: A.Type, primaryKey: PartialKeyPath<A>? = nil,
                                     policy: TableCreatePolicy = .defaultPolicy) throws -> Create<A, Database<C>> {
        var key: Int?
        try executor.schemaChange("create(\(A.self).self)", tables: A.crudSchemaTables(deep: !policy.contains(.shallow)), checking: {
            key = try Self.primaryKeyColumn(primaryKey, of: A.self, for: "create")
            if policy.contains(.neverReuseKeys) || A.crudNeverReusesKeys {
                let asked = A.crudNeverReusesKeys ? "\(A.self).crudNeverReusesKeys" : "create(\(A.self).self, policy: .neverReuseKeys)"
                guard A.crudSchema.isIntegerColumn(key) else {
                    throw CRUDSQLGenError("\(asked): the database makes only integer keys, and "
                        + (key.map { "the primary key \"\(A.crudSchema.columns[$0].name)\" is not an integer" } ?? "\(A.self) has no primary key (no property named id)")
                        + "; leave it out, or give the model an integer id")
                }
            }
        }) { steps in
            var created: Set<ObjectIdentifier> = []
            try createTable(A.self, primaryKey: key, policy: policy, created: &created, on: steps)
        }
        return Create(table: table(A.self))
    }

    /// The column `primaryKey` names, or the model's `id` column when it is `nil`.
    /// - Throws: `CRUDSQLGenError` naming `operation` when the key path names no column.
    static func primaryKeyColumn<A: CRUDModel>(_ primaryKey: PartialKeyPath<A>?, of model: A.Type, for operation: String) throws -> Int? {
        guard let primaryKey else { return A.crudSchema.primaryKey }
        guard let column = A.crudColumnIndex(of: primaryKey) else {
            throw CRUDSQLGenError("\(operation): primary key \(primaryKey) names no column of \(A.self)")
        }
        return column
    }

    private func createTable(_ model: any CRUDModel.Type, primaryKey: Int?, policy: TableCreatePolicy,
                             created: inout Set<ObjectIdentifier>, on steps: CRUDSchemaSteps<C.Connection>) throws {
        guard created.insert(ObjectIdentifier(model)).inserted else { return }
        let schema = model.crudSchema
        if policy.contains(.dropTable) {
            try steps.run(.dropTable(schema.name))
        }
        if policy.contains(.reconcileTable), let existing = try steps.columns(ofTable: schema.name)?.map(\.name) {
            let wanted = Set(schema.columns.map(\.name))
            for column in schema.columns where !existing.contains(column.name) {
                try steps.run(.addColumn(column, table: schema.name))
            }
            for column in existing where !wanted.contains(column) {
                try steps.run(.dropColumn(column, table: schema.name))
            }
        } else {
            try steps.run(.createTable(schema, primaryKey: primaryKey, constraints: try model.crudFrozenConstraints(), ifNotExists: true,
                                       neverReuseKeys: (policy.contains(.neverReuseKeys) || model.crudNeverReusesKeys) && schema.isIntegerColumn(primaryKey)))
        }
        for index in try model.crudIndexes(in: schema) {
            do {
                try steps.run(index)
            } catch let error as CRUDSQLExeError where steps.dialect.refusedExistingIndex(error) {
                // The table was there with its index: the same answer as IF NOT EXISTS.
            }
        }
        if !policy.contains(.shallow) {
            for relation in schema.relations {
                try createTable(relation.target, primaryKey: relation.target.crudSchema.primaryKey, policy: policy,
                                created: &created, on: steps)
            }
        }
    }

    /// `identifier`, a table's or column's name, quoted for this database's SQL text: in double quotes
    /// on SQLite and PostgreSQL, in backticks on MySQL (which reads `"…"` as a string). For raw SQL
    /// that runs on every backend: `db.sql("UPDATE \(db.quote(Cycle.self)) SET \(db.quote("gears")) = 0")`.
    public func quote(_ identifier: String) -> String {
        executor.dialect.quote(identifier)
    }

    /// The table of `model`, quoted for this database's SQL text: `quote(_:)` of its name.
    public func quote<A: CRUDModel>(_ model: A.Type) -> String {
        executor.dialect.quote(A.crudSchema.name)
    }

    /// The placeholder of the binding at `index` (from 0) in this database's SQL text: `?1` on
    /// SQLite, `$1` on PostgreSQL, `?` on MySQL (whose placeholders bind in the order they appear).
    public func placeholder(_ index: Int) -> String {
        executor.dialect.placeholder(index)
    }

    /// Runs one SQL statement, binding `bindings` to its parameters in order; rows it returns are
    /// discarded. Write parameters in the driver's form (`?` in SQLite, `$1` in PostgreSQL).
    /// - Throws: `CRUDSQLExeError`.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func sql(_ sql: String, bindings: Bindings = []) throws {
        try executor.run(CRUDRawOperation(sql, bindings, reader: CRUDClosureReader(Self.discardRows)))
    }

    /// Runs one SQL statement and reads every row as `type`, matching the model's columns to the
    /// result's columns by name (extra result columns are ignored).
    /// - Throws: `CRUDSQLExeError`; `CRUDDecoderError` when a model column is missing from the result
    ///   or a value does not fit.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func sql<A: CRUDModel>(_ sql: String, bindings: Bindings = [], _ type: A.Type) throws -> [A] {
        try executor.run(CRUDRawOperation(sql, bindings, reader: CRUDClosureReader { try Self.rows($0, as: A.self) }))
    }

    /// Steps through every row the statement gives, reading none.
    /// - Throws: `CRUDSQLExeError`.
    static func discardRows(_ statement: C.Connection.Statement) throws {
        while try statement.step() {}
    }

    /// Every row the statement gives as `A`, its columns matched by name.
    /// - Throws: `CRUDSQLExeError`; `CRUDDecoderError` when a model column is missing from the result
    ///   or a value does not fit.
    static func rows<A: CRUDModel>(_ statement: C.Connection.Statement, as type: A.Type) throws -> [A] {
        var results: [A] = []
        var positions: [Int]?
        while try statement.step() {
            if positions == nil {
                var byName: [String: Int] = [:]
                for column in 0 ..< statement.resultColumnCount where byName[statement.resultColumnName(column)] == nil {
                    byName[statement.resultColumnName(column)] = column
                }
                positions = try A.crudSchema.columns.map { column in
                    guard let position = byName[column.name] else {
                        throw CRUDDecoderError("sql(): the result has no column \"\(column.name)\" for \(A.self); select every column of the model")
                    }
                    return position
                }
            }
            do {
                results.append(try A(crudRow: NamedColumnRow(base: statement, positions: positions!)))
            } catch let error as CRUDDecoderError {
                throw error.reading(A.self)
            }
        }
        return results
    }
}

extension CRUDDatabaseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

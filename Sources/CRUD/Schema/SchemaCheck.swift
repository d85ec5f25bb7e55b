/// One way a table in the database differs from a model's generated schema.
public enum CRUDSchemaDifference: Sendable, Hashable, CustomStringConvertible {
    /// The model's table does not exist.
    case missingTable(String)
    /// The table has no column for one of the model's properties.
    case missingColumn(table: String, column: String)
    /// The column's declared type does not hold the property's values.
    case typeMismatch(table: String, column: String, model: CRUDColumnType, database: String)
    /// The column accepts NULL where the property is not optional (reads of a NULL would fail), or
    /// refuses NULL where the property is optional (writes of `nil` would fail).
    case nullabilityMismatch(table: String, column: String, propertyIsOptional: Bool)
    /// The table has a column that the frozen schema it is checked against does not.
    case unexpectedColumn(table: String, column: String)
    /// The table lacks an index of the frozen schema.
    case missingIndex(table: String, index: String)
    /// The table has an index (not one of a key or a constraint) that the frozen schema does not.
    case unexpectedIndex(table: String, index: String)
    /// The table lacks a constraint of the frozen schema.
    case missingConstraint(table: String, constraint: String)
    /// The table may give a deleted row's key to a new row, where its model or schema says it never
    /// does (`crudNeverReusesKeys`): a SQLite table made without `AUTOINCREMENT`.
    case reusesKeys(table: String)

    public var description: String {
        switch self {
        case let .missingTable(table):
            "table \"\(table)\" does not exist"
        case let .missingColumn(table, column):
            "\"\(table)\".\"\(column)\": no such column"
        case let .typeMismatch(table, column, model, database):
            "\"\(table)\".\"\(column)\": the database declares \(database), which does not hold the property's \(model)"
        case let .nullabilityMismatch(table, column, optional):
            optional
                ? "\"\(table)\".\"\(column)\": the column is NOT NULL but the property is optional"
                : "\"\(table)\".\"\(column)\": the column accepts NULL but the property is not optional"
        case let .unexpectedColumn(table, column):
            "\"\(table)\".\"\(column)\": the schema has no such column"
        case let .missingIndex(table, index):
            "\"\(table)\": the index \"\(index)\" does not exist"
        case let .unexpectedIndex(table, index):
            "\"\(table)\": the schema has no index \"\(index)\""
        case let .missingConstraint(table, constraint):
            "\"\(table)\": the constraint \"\(constraint)\" does not exist"
        case let .reusesKeys(table):
            "\"\(table)\": made without AUTOINCREMENT, it gives a deleted row's key to the next row, where the model says it never "
                + "reuses keys (crudNeverReusesKeys): generate a migration step, which rebuilds it (setNeverReusesKeys)"
        }
    }
}

/// The database's tables do not match the models' generated schemas; `differences` lists every
/// difference found, not only the first.
public struct CRUDSchemaMismatchError: CRUDReportableError, CustomStringConvertible, Sendable {
    /// Every difference found, table by table.
    public let differences: [CRUDSchemaDifference]
    public var isReported = false

    public var description: String {
        "CRUDSchemaMismatchError: the database does not match the models in \(differences.count) "
            + (differences.count == 1 ? "place" : "places")
            + " (add a migration that brings it there, or fix the model):\n"
            + differences.map { "  - \($0)" }.joined(separator: "\n")
    }
}

extension Database {
    /// Compares the tables of `models` (and of the models they join) with their generated schemas:
    /// call it at startup, after migrating, so that a model and its table that drifted apart fail
    /// there, with every difference at once, and not later on some read. Columns the models do not
    /// have are not differences (a model may read part of a table); their defaults must let inserts
    /// through.
    /// - Throws: `CRUDSchemaMismatchError` listing every missing table, missing column, type and
    ///   nullability mismatch; `CRUDSQLExeError` when the database cannot be read.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func checkSchema(_ models: [any CRUDModel.Type]) throws {
        try executor.readingCatalog(.read) { catalog in
            var checked: Set<String> = []
            var differences: [CRUDSchemaDifference] = []
            var pending = models
            while let model = pending.popLast() {
                let schema = model.crudSchema
                guard checked.insert(schema.name).inserted else { continue }
                pending.append(contentsOf: schema.relations.map(\.target))
                differences += try Self.differences(of: schema, from: catalog.columns(ofTable: schema.name),
                                                    in: catalog.dialect)
                if model.crudNeverReusesKeys, try Self.reusesKeys(schema.name, in: catalog) { differences.append(.reusesKeys(table: schema.name)) }
            }
            guard differences.isEmpty else { throw CRUDSchemaMismatchError(differences: differences) }
        }
    }

    /// Compares the database's tables with `schema`, the frozen schema a migration left
    /// (`CRUDMigrator.schema`): call it at startup, after migrating, so that a database changed by
    /// hand, or migrated by another version of the app, fails there with every difference at once.
    /// Unlike the check against models, a column or an index the schema lacks is a difference too,
    /// and so is a missing index or constraint (constraints are compared by name; one the schema
    /// lacks is not reported, since databases list their keys and NOT NULL among them).
    /// - Throws: `CRUDSchemaMismatchError` listing every missing table; missing or unexpected column
    ///   or index; type and nullability mismatch; missing constraint; `CRUDSQLExeError` when the
    ///   database cannot be read.
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func checkSchema(_ schema: CRUDSchema) throws {
        try executor.readingCatalog(.read) { catalog in
            let differences = try Self.differences(of: schema.tables, in: catalog)
            guard differences.isEmpty else { throw CRUDSchemaMismatchError(differences: differences) }
        }
    }

    /// How the database's tables differ from frozen `tables`, unexpected columns included.
    /// - Throws: `CRUDSQLExeError` when the catalog cannot be read.
    static func differences(of tables: [CRUDSchemaTable], in catalog: CRUDSchemaSteps<C.Connection>) throws -> [CRUDSchemaDifference] {
        var differences: [CRUDSchemaDifference] = []
        for table in tables {
            let existing = try catalog.columns(ofTable: table.name)
            differences += Self.differences(of: table.tableSchema, from: existing, in: catalog.dialect)
            guard let existing else { continue }
            for column in existing where table[column: column.name] == nil {
                differences.append(.unexpectedColumn(table: table.name, column: column.name))
            }
            let indexes = Set(try catalog.indexes(ofTable: table.name).map(\.name))
            let expected = table.indexes.map { SQLBuilder.keptName($0.name, in: catalog.dialect) }
            differences += expected.filter { !indexes.contains($0) }.map { .missingIndex(table: table.name, index: $0) }
            differences += indexes.subtracting(expected).sorted().map { .unexpectedIndex(table: table.name, index: $0) }
            let constraints = try catalog.constraintNames(ofTable: table.name)
            differences += table.constraints.map { SQLBuilder.keptName($0.name, in: catalog.dialect) }.filter { !constraints.contains($0) }
                .map { .missingConstraint(table: table.name, constraint: $0) }
            if table.neverReusesKeys, try Self.reusesKeys(table.name, in: catalog) { differences.append(.reusesKeys(table: table.name)) }
        }
        return differences
    }

    /// Whether the existing table `table` may reuse a deleted row's key: on a database that
    /// needs a clause for that (SQLite), one made without it.
    /// - Throws: `CRUDSQLExeError` when the catalog cannot be read.
    static func reusesKeys(_ table: String, in catalog: CRUDSchemaSteps<C.Connection>) throws -> Bool {
        guard !catalog.dialect.neverReusedKeyClause.isEmpty, let definition = try catalog.tableDefinition(ofTable: table) else { return false }
        return !catalog.neverReusesKeys(definition: definition)
    }

    /// The differences of one table, in the model's column order.
    static func differences(of schema: CRUDTableSchema, from existing: [CRUDDatabaseColumn]?,
                            in dialect: any CRUDDialect) -> [CRUDSchemaDifference] {
        guard let existing else { return [.missingTable(schema.name)] }
        let byName = Dictionary(existing.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var differences: [CRUDSchemaDifference] = []
        for column in schema.columns {
            guard let found = byName[column.name] else {
                differences.append(.missingColumn(table: schema.name, column: column.name))
                continue
            }
            if found.typeDiffers(from: column, in: dialect) {
                differences.append(.typeMismatch(table: schema.name, column: column.name, model: column.type, database: found.declaredType))
            }
            if found.nullabilityDiffers(from: column) {
                differences.append(.nullabilityMismatch(table: schema.name, column: column.name, propertyIsOptional: column.isOptional))
            }
        }
        return differences
    }
}

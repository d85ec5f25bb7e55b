/// A frozen migration step found among a target's files: a `static let` whose value is a
/// `CRUDSchemaMigration(…)`, as `crud-migrations` writes them.
struct MigrationStep {
    /// The property's name (`migration0002`).
    var property: String
    /// The type it is declared in (`SchemaHistory`).
    var namespace: String
    /// The step's name (`0002 add priority`), and the number it starts with.
    var name: String
    var number: Int
    /// Every table as the step leaves them.
    var schema: SchemaSnapshot
    var file: SourceFile
    var offset: Int
}

/// Reads the frozen steps of a target back: the last one's schema is what the models are compared with.
enum SnapshotReader {
    /// Whether `property` declares a frozen step: a `static let` whose value is `CRUDSchemaMigration(…)`.
    static func isStep(_ property: PropertyDeclaration, in file: SourceFile) -> Bool {
        property.isStatic && property.value.map { file.text($0).hasPrefix("CRUDSchemaMigration(") } == true
    }

    /// The steps in `files`, by number; a step that cannot be read is a diagnostic at its text.
    static func steps(in files: [ParsedFile]) -> (steps: [MigrationStep], diagnostics: [Diagnostic]) {
        var steps: [MigrationStep] = []
        var diagnostics: [Diagnostic] = []
        for parsed in files {
            for declaration in parsed.types {
                for property in declaration.properties where isStep(property, in: parsed.file) {
                    guard let range = property.value else { continue }
                    do {
                        steps.append(try step(Expression.parse(range, of: parsed.file), property: property.name,
                                              namespace: declaration.qualifiedName, file: parsed.file))
                    } catch let problem as ExpressionProblem {
                        let location = parsed.file.location(of: problem.offset)
                        diagnostics.append(Diagnostic(severity: .error, path: parsed.file.path, line: location.line, column: location.column,
                                                      message: "the frozen migration '\(property.name)' cannot be read: \(problem.message); "
                                                          + "restore the generated file (git checkout), or delete it and generate the step again"))
                    } catch {
                        continue
                    }
                }
            }
        }
        steps.sort { ($0.number, $0.name) < ($1.number, $1.name) }
        if let last = steps.last {
            let problems = last.schema.problems
            if !problems.isEmpty {
                let location = last.file.location(of: last.offset)
                diagnostics.append(Diagnostic(severity: .error, path: last.file.path, line: location.line, column: location.column,
                                              message: "the schema of the frozen migration '\(last.property)' is impossible: "
                                                  + problems.joined(separator: "; ") + "; restore the generated file (git checkout)"))
            }
        }
        for (earlier, later) in zip(steps, steps.dropFirst()) where earlier.number == later.number {
            let location = later.file.location(of: later.offset)
            diagnostics.append(Diagnostic(severity: .error, path: later.file.path, line: location.line, column: location.column,
                                          message: "the frozen migrations '\(earlier.name)' and '\(later.name)' have the same number \(later.number); "
                                              + "each step needs a number of its own"))
        }
        return (steps, diagnostics)
    }

    private static func step(_ expression: Expression, property: String, namespace: String, file: SourceFile) throws -> MigrationStep {
        let arguments = try call(expression, "CRUDSchemaMigration")
        let name = try string(try argument(arguments, nil, at: expression), "the step's name")
        guard let number = Int(name.prefix { $0.isNumber }) else {
            throw ExpressionProblem(offset: expression.offset, message: "its name '\(name)' does not start with its number")
        }
        let schema = try call(try argument(arguments, "schema", at: expression), "CRUDSchema")
        let tables = try array(try argument(schema, nil, at: expression), "the schema's tables").map(table)
        return MigrationStep(property: property, namespace: namespace, name: name, number: number, schema: SchemaSnapshot(tables: tables),
                             file: file, offset: expression.offset)
    }

    private static func table(_ expression: Expression) throws -> SnapshotTable {
        let arguments = try call(expression, "CRUDSchemaTable")
        var table = SnapshotTable(name: try string(try argument(arguments, nil, at: expression), "a table's name"),
                                  columns: try array(try argument(arguments, "columns", at: expression), "a table's columns").map(column))
        if let key = arguments.first(where: { $0.label == "primaryKey" }) {
            table.primaryKey = try string(key.value, "a primary key")
        }
        if let constraints = arguments.first(where: { $0.label == "constraints" }) {
            table.constraints = try array(constraints.value, "a table's constraints").map(constraint)
        }
        if let indexes = arguments.first(where: { $0.label == "indexes" }) {
            table.indexes = try array(indexes.value, "a table's indexes").map(index)
        }
        if let never = arguments.first(where: { $0.label == "neverReusesKeys" }) {
            table.neverReusesKeys = try bool(never.value)
        }
        return table
    }

    private static func column(_ expression: Expression) throws -> SnapshotColumn {
        let arguments = try call(expression, "CRUDSchemaColumn")
        guard arguments.count >= 2, arguments[1].label == nil else {
            throw ExpressionProblem(offset: expression.offset, message: "a column needs a name and a CRUDColumnType")
        }
        guard let type = ColumnStorage(arguments[1].value) else {
            throw ExpressionProblem(offset: arguments[1].value.offset, message: "a column's type is one of .integer(bits: 8, 16, 32 or 64, signed: true or false), "
                + ".real(bits: 32 or 64), .bool, .text, .blob, .date, .uuid and .json")
        }
        return SnapshotColumn(name: try string(arguments[0].value, "a column's name"), type: type,
                              isNullable: try arguments.first { $0.label == "nullable" }.map { try bool($0.value) } ?? false)
    }

    private static func index(_ expression: Expression) throws -> SnapshotIndex {
        let arguments = try call(expression, "CRUDSchemaIndex")
        return SnapshotIndex(name: try string(try argument(arguments, nil, at: expression), "an index's name"),
                             columns: try strings(try argument(arguments, "columns", at: expression)),
                             isUnique: try arguments.first { $0.label == "unique" }.map { try bool($0.value) } ?? false)
    }

    private static func constraint(_ expression: Expression) throws -> SnapshotConstraint {
        guard case let .call(.member(nil, kind, _), arguments, _) = expression else {
            throw ExpressionProblem(offset: expression.offset, message: "a constraint is .unique(…), .foreignKey(…) or .check(…)")
        }
        let name = try string(try argument(arguments, nil, at: expression), "a constraint's name")
        switch kind {
        case "unique":
            return .unique(name: name, columns: try strings(try argument(arguments, "columns", at: expression)))
        case "foreignKey":
            return .foreignKey(name: name, columns: try strings(try argument(arguments, "columns", at: expression)),
                               table: try string(try argument(arguments, "references", at: expression), "a referenced table"),
                               referenced: try strings(try argument(arguments, "referencedColumns", at: expression)),
                               onDelete: try Expression.referentialAction("onDelete", in: arguments),
                               onUpdate: try Expression.referentialAction("onUpdate", in: arguments))
        case "check":
            return .check(name: name, condition: try string(try argument(arguments, "condition", at: expression), "a check's condition"))
        case "typedCheck":
            return .typedCheck(name: name, condition: try string(try argument(arguments, "condition", at: expression), "a check's condition"))
        default:
            throw ExpressionProblem(offset: expression.offset, message: "'.\(kind)' is no constraint: write .unique(…), .foreignKey(…) or .check(…)")
        }
    }

    // MARK: - Reading values

    private static func call(_ expression: Expression, _ callee: String) throws -> [Expression.Argument] {
        guard case let .call(function, arguments, _) = expression, function.dottedName == callee || function.dottedName == "CRUD." + callee else {
            throw ExpressionProblem(offset: expression.offset, message: "expected \(callee)(…)")
        }
        return arguments
    }

    private static func argument(_ arguments: [Expression.Argument], _ label: String?, at expression: Expression) throws -> Expression {
        guard let found = arguments.first(where: { $0.label == label }) else {
            throw ExpressionProblem(offset: expression.offset, message: label.map { "the argument '\($0):' is missing" } ?? "the first argument is missing")
        }
        return found.value
    }

    private static func string(_ expression: Expression, _ what: String) throws -> String {
        try expression.stringValue(what)
    }

    private static func strings(_ expression: Expression) throws -> [String] {
        try array(expression, "a list of column names").map { try string($0, "a column name") }
    }

    private static func bool(_ expression: Expression) throws -> Bool {
        guard case let .name(value, _) = expression, value == "true" || value == "false" else {
            throw ExpressionProblem(offset: expression.offset, message: "expected true or false")
        }
        return value == "true"
    }

    private static func array(_ expression: Expression, _ what: String) throws -> [Expression] {
        guard case let .array(elements, _) = expression else { throw ExpressionProblem(offset: expression.offset, message: "\(what) must be an array literal") }
        return elements
    }
}

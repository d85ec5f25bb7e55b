/// The schema the models declare, worked out without running code: each model's table with its
/// columns, key, `crudConstraints` and `crudIndexes`, named as the runtime names them.
struct ModelSchema {
    var snapshot = SchemaSnapshot(tables: [])
    /// Where each table's model and columns are declared, for warnings at the user's line.
    var models: [String: Model] = [:]
    var diagnostics: [Diagnostic] = []

    init(_ models: [Model]) {
        for model in models where self.models[model.tableName] == nil {
            self.models[model.tableName] = model
            snapshot.tables.append(table(of: model, among: models))
        }
    }

    private mutating func table(of model: Model, among models: [Model]) -> SnapshotTable {
        let columns = model.columns.map { column in
            let storage: ColumnStorage? = switch column.storage {
            case let .known(storage): storage
            case let .declared(value): ColumnStorage(Expression.parse(value.range, of: value.file))
            case nil: nil
            }
            if storage == nil {
                diagnostics.append(Diagnostic(severity: .error, path: model.declaredIn.path, line: column.line, column: column.column,
                                              message: "crud-migrations cannot tell how '\(model.qualifiedName).\(column.property)' ('\(column.swiftType)') "
                                                  + "is stored without running code: declare it in the type, as "
                                                  + "'static let crudColumnType: CRUDColumnType = .text' (or the type it is)"))
            }
            return SnapshotColumn(name: column.name, type: storage ?? .blob, isNullable: column.isOptional)
        }
        var table = SnapshotTable(name: model.tableName, columns: columns, primaryKey: model.primaryKey.map { model.columns[$0].name })
        if let value = model.constraintsValue {
            table.constraints = read(value, of: model, "crudConstraints") { try Self.constraint($0, of: model, columns: columns, among: models) }
        }
        if let value = model.indexesValue {
            table.indexes = read(value, of: model, "crudIndexes") { try Self.index($0, of: model) }
        }
        if let value = model.neverReusesKeysValue {
            table.neverReusesKeys = neverReusesKeys(value, of: model, key: model.primaryKey.map { columns[$0] })
        }
        return table
    }

    /// The literal `true` or `false` of `crudNeverReusesKeys`; `true` needs an integer key, which
    /// the database makes. A problem is an error at the value.
    private mutating func neverReusesKeys(_ value: DeclaredValue, of model: Model, key: SnapshotColumn?) -> Bool {
        let expression = Expression.parse(value.range, of: value.file)
        let problem: String
        if case let .name(literal, _) = expression, literal == "true" || literal == "false" {
            guard literal == "true" else { return false }
            if let key, case .integer = key.type { return true }
            problem = "the database makes only integer keys, and "
                + (key.map { "the primary key '\($0.name)' is not an integer" } ?? "'\(model.qualifiedName)' has no primary key (no property named id)")
                + ": leave it out, or give the model an integer id"
        } else {
            problem = "write it as the literal true or false"
        }
        let location = value.file.location(of: expression.offset)
        diagnostics.append(Diagnostic(severity: .error, path: value.file.path, line: location.line, column: location.column,
                                      message: "crud-migrations reads '\(model.qualifiedName).crudNeverReusesKeys' without running code: \(problem)"))
        return false
    }

    /// The elements of the array literal `value`, each read by `element`; a problem is an error at it.
    private mutating func read<T>(_ value: DeclaredValue, of model: Model, _ property: String, _ element: (Expression) throws -> T) -> [T] {
        let expression = Expression.parse(value.range, of: value.file)
        do {
            guard case let .array(elements, _) = expression else {
                throw ExpressionProblem(offset: expression.offset, message: "write it as an array literal")
            }
            return try elements.map(element)
        } catch let problem as ExpressionProblem {
            let location = value.file.location(of: problem.offset)
            diagnostics.append(Diagnostic(severity: .error, path: value.file.path, line: location.line, column: location.column,
                                          message: "crud-migrations reads '\(model.qualifiedName).\(property)' without running code: \(problem.message)"))
        } catch {}
        return []
    }

    private static func constraint(_ expression: Expression, of model: Model, columns: [SnapshotColumn], among models: [Model]) throws
        -> SnapshotConstraint {
        guard case let .call(.member(nil, kind, _), arguments, _) = expression else {
            throw ExpressionProblem(offset: expression.offset, message: "each constraint is .foreignKey(…), .unique(…) or .check(…) with literal arguments")
        }
        let name = try arguments.first { $0.label == "name" }.map { try string($0.value) }
        switch kind {
        case "foreignKey":
            guard arguments.count >= 2, arguments[1].label == "references",
                  case let .keyPath(root?, path, offset) = arguments[1].value, path.count == 1 else {
                throw ExpressionProblem(offset: expression.offset, message: "a foreign key is .foreignKey(\\.column, references: \\Other.key)")
            }
            let column = try columnName(arguments[0].value, of: model)
            guard let target = models.first(where: { $0.qualifiedName == root || $0.qualifiedName.hasSuffix("." + root) }),
                  let referenced = target.columns.first(where: { $0.property == path[0] }) else {
                throw ExpressionProblem(offset: offset, message: "'\\\(root).\(path[0])' names no column of a model of this target")
            }
            return .foreignKey(name: name ?? "\(model.tableName)_\(column)_fkey", columns: [column], table: target.tableName,
                               referenced: [referenced.name], onDelete: try Expression.referentialAction("onDelete", in: arguments),
                               onUpdate: try Expression.referentialAction("onUpdate", in: arguments))
        case "unique":
            let columns = try arguments.filter { $0.label == nil }.map { try columnName($0.value, of: model) }
            return .unique(name: name ?? "\(model.tableName)_\(columns.joined(separator: "_"))_key", columns: columns)
        case "check":
            guard let condition = arguments.first, condition.label == nil else {
                throw ExpressionProblem(offset: expression.offset, message: "a check is .check(\"condition\") or .check(\\Model.column >= 0)")
            }
            if case .string = condition.value {
                return .check(name: name ?? "\(model.tableName)_check", condition: try string(condition.value))
            }
            let sql = try CheckCondition.sql(condition.value) { keyPath in
                let name = try columnName(keyPath, of: model)
                guard let column = columns.first(where: { $0.name == name }) else {
                    throw ExpressionProblem(offset: keyPath.offset, message: "'\(name)' is no column of '\(model.qualifiedName)'")
                }
                return column
            }
            return .typedCheck(name: name ?? "\(model.tableName)_check", condition: sql)
        default:
            throw ExpressionProblem(offset: expression.offset, message: "'.\(kind)' is no constraint: write .foreignKey(…), .unique(…) or .check(…)")
        }
    }

    private static func index(_ expression: Expression, of model: Model) throws -> SnapshotIndex {
        guard case let .call(.member(nil, kind, _), arguments, _) = expression, kind == "index" || kind == "unique" else {
            throw ExpressionProblem(offset: expression.offset, message: "each index is .index(\\.column, …) or .unique(\\.column, …)")
        }
        let columns = try arguments.filter { $0.label == nil }.map { try columnName($0.value, of: model) }
        let name = try arguments.first { $0.label == "name" }.map { try string($0.value) }
        return SnapshotIndex(name: name ?? "index_\(model.tableName)_\(columns.joined(separator: "_"))", columns: columns, isUnique: kind == "unique")
    }

    /// The column a key path of `model` names (`\.title`, `\Todo.title`).
    private static func columnName(_ expression: Expression, of model: Model) throws -> String {
        guard case let .keyPath(root, path, offset) = expression, path.count == 1 else {
            throw ExpressionProblem(offset: expression.offset, message: "name columns by key paths, as \\.title")
        }
        guard root == nil || root == "Self" || model.qualifiedName == root || model.qualifiedName.hasSuffix("." + (root ?? "")),
              let column = model.columns.first(where: { $0.property == path[0] }) else {
            throw ExpressionProblem(offset: offset, message: "'\(path[0])' is no column of '\(model.qualifiedName)'")
        }
        return column.name
    }

    private static func string(_ expression: Expression) throws -> String {
        try expression.stringValue("it")
    }
}

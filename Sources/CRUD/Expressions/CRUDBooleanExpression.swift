/// A condition for `where`, built from key paths and values with the README's operators:
/// `\Person.lastName == "Lars" && \PhoneNumber.planetCode == 12`.
///
/// Values are captured when the expression is built and always bound as parameters, never written
/// into the SQL text.
public struct CRUDBooleanExpression: Sendable {
    @usableFromInline
    indirect enum Node: Sendable {
        case compare(CRUDColumnReference, ComparisonOperator, CRUDDatabaseValue)
        case contained(CRUDColumnReference, [CRUDDatabaseValue], negated: Bool)
        case like(CRUDColumnReference, LikePattern, String, negated: Bool)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
        /// A value that could not be captured; the error is thrown when the query is built.
        case invalid(Error)
    }

    @usableFromInline let node: Node

    @inlinable
    init(_ node: Node) {
        self.node = node
    }

    /// Every model type the expression names, in order of first appearance.
    var referencedTypes: [any CRUDModel.Type] {
        var found: [any CRUDModel.Type] = []
        func visit(_ node: Node) {
            switch node {
            case let .compare(column, _, _), let .contained(column, _, _), let .like(column, _, _, _):
                if !found.contains(where: { $0 == column.model }) { found.append(column.model) }
            case let .and(left, right), let .or(left, right):
                visit(left)
                visit(right)
            case let .not(inner):
                visit(inner)
            case .invalid:
                break
            }
        }
        visit(node)
        return found
    }
}

/// A column of a model type, named by a key path (`\Person.name`) or by the generated column
/// constant (`Person.Columns.name`), possibly inside a SQL function (`lower(…)`). Made by the
/// operators and functions; it has nothing to use directly, so it is out of the user documentation.
@_documentation(visibility: internal)
public struct CRUDColumnReference: Sendable {
    @usableFromInline let model: any CRUDModel.Type
    /// Key paths are immutable once formed (this one names a stored property, with no captured
    /// subscript arguments), so sharing one between threads is safe though the type is not marked so.
    @usableFromInline nonisolated(unsafe) let keyPath: AnyKeyPath?
    /// The column's position, when a column constant named it.
    @usableFromInline let column: Int?
    /// The SQL function the column is wrapped in.
    @usableFromInline var function: CRUDSQLFunction?

    @inlinable
    init<Model: CRUDModel>(_ keyPath: PartialKeyPath<Model>) {
        model = Model.self
        self.keyPath = keyPath
        column = nil
    }

    init<Model: CRUDModel, Value: CRUDValue>(_ column: CRUDColumn<Model, Value>) {
        model = Model.self
        keyPath = nil
        self.column = column.index
    }

    /// The column's position in its table, or `nil` for a key path that names no column.
    var index: Int? {
        column ?? keyPath.flatMap { model.crudColumnIndex(ofAny: $0) }
    }

    /// How the user wrote it, for messages.
    var written: String {
        let name = keyPath.map { "\($0)" } ?? "\(model).Columns.\(model.crudSchema.columns[column!].name)"
        return function.map { "\($0)(\(name))" } ?? name
    }
}

@usableFromInline
enum ComparisonOperator: String, Sendable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// A small number per operator, for query shapes.
    var code: Int {
        switch self {
        case .equal: 0
        case .notEqual: 1
        case .less: 2
        case .lessOrEqual: 3
        case .greater: 4
        case .greaterOrEqual: 5
        }
    }
}

@usableFromInline
enum LikePattern: Sendable {
    case contains, beginsWith, endsWith

    /// The LIKE pattern for a literal text: `%` and `_` in it match themselves.
    func pattern(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        switch self {
        case .contains: return "%" + escaped + "%"
        case .beginsWith: return escaped + "%"
        case .endsWith: return "%" + escaped
        }
    }
}

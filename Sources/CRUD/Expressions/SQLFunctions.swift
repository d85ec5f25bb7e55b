/// The SQL functions a condition can apply to a text column (Sqlable's filter functions).
public enum CRUDSQLFunction: String, Sendable, CustomStringConvertible {
    /// `lower(column)`: lower case.
    case lower
    /// `upper(column)`: upper case.
    case upper
    /// `length(column)`: the number of characters.
    case length
    /// `trim(column)`: without leading and trailing spaces.
    case trim
    /// `lower(column)` compared with `lower(value)`: equality and LIKE that ignore case.
    case caseInsensitive

    public var description: String { rawValue }

    /// Whether the function applies to the compared value as well as to the column.
    var appliesToValue: Bool { self == .caseInsensitive }

    /// A small number per function, for query shapes (0 is no function).
    var code: Int {
        switch self {
        case .lower: 1
        case .upper: 2
        case .length: 3
        case .trim: 4
        case .caseInsensitive: 5
        }
    }
}

/// A column inside a SQL function, for conditions: `where(lower(\Person.lastName) == "lars")`.
/// It takes the operators a column takes, with `Value` the function's result type.
public struct CRUDColumnFunction<Model: CRUDModel, Value: CRUDValue>: CRUDColumnOperand {
    public let crudReference: CRUDColumnReference

    init(_ function: CRUDSQLFunction, _ column: CRUDColumnReference) {
        var reference = column
        reference.function = function
        crudReference = reference
    }
}

/// Something a condition compares: a generated column constant or a function of a column. Its
/// operators are type-checked against `Value`.
public protocol CRUDColumnOperand<Model, Value> {
    /// The model whose table has the column.
    associatedtype Model: CRUDModel
    /// The type of the values it is compared with.
    associatedtype Value: CRUDValue
    /// What the condition names.
    var crudReference: CRUDColumnReference { get }
}

extension CRUDColumn: CRUDColumnOperand {
    public var crudReference: CRUDColumnReference { CRUDColumnReference(self) }
}

/// The column in lower case. SQLite changes only ASCII letters; PostgreSQL follows the database's
/// `LC_CTYPE` (only ASCII under the `C` locale).
public func lower<Model: CRUDModel, Text: CRUDLikeComparable>(_ keyPath: KeyPath<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.lower, CRUDColumnReference(keyPath))
}

/// The generated column in lower case, as `lower(_:)` of a key path.
public func lower<Model: CRUDModel, Text: CRUDLikeComparable>(_ column: CRUDColumn<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.lower, CRUDColumnReference(column))
}

/// The column in upper case (the same letters as `lower` changes).
public func upper<Model: CRUDModel, Text: CRUDLikeComparable>(_ keyPath: KeyPath<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.upper, CRUDColumnReference(keyPath))
}

/// The generated column in upper case, as `upper(_:)` of a key path.
public func upper<Model: CRUDModel, Text: CRUDLikeComparable>(_ column: CRUDColumn<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.upper, CRUDColumnReference(column))
}

/// The column without leading and trailing spaces.
public func trim<Model: CRUDModel, Text: CRUDLikeComparable>(_ keyPath: KeyPath<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.trim, CRUDColumnReference(keyPath))
}

/// The generated column without leading and trailing spaces.
public func trim<Model: CRUDModel, Text: CRUDLikeComparable>(_ column: CRUDColumn<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.trim, CRUDColumnReference(column))
}

/// The number of characters in the column (not bytes), on every backend.
public func length<Model: CRUDModel>(_ keyPath: KeyPath<Model, String>) -> CRUDColumnFunction<Model, Int> {
    CRUDColumnFunction(.length, CRUDColumnReference(keyPath))
}

/// The number of characters, or NULL for a NULL column.
public func length<Model: CRUDModel>(_ keyPath: KeyPath<Model, String?>) -> CRUDColumnFunction<Model, Int?> {
    CRUDColumnFunction(.length, CRUDColumnReference(keyPath))
}

/// The number of characters in the generated column (not bytes).
public func length<Model: CRUDModel>(_ column: CRUDColumn<Model, String>) -> CRUDColumnFunction<Model, Int> {
    CRUDColumnFunction(.length, CRUDColumnReference(column))
}

/// The number of characters in the generated column, or NULL for a NULL column.
public func length<Model: CRUDModel>(_ column: CRUDColumn<Model, String?>) -> CRUDColumnFunction<Model, Int?> {
    CRUDColumnFunction(.length, CRUDColumnReference(column))
}

/// The column compared ignoring case: `caseInsensitive(\Person.name) == "LARS"`, `… %=% "ar"`. Both
/// sides are put in lower case, with `lower`'s reach.
public func caseInsensitive<Model: CRUDModel, Text: CRUDLikeComparable>(_ keyPath: KeyPath<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.caseInsensitive, CRUDColumnReference(keyPath))
}

/// The generated column compared ignoring case, as `caseInsensitive(_:)` of a key path.
public func caseInsensitive<Model: CRUDModel, Text: CRUDLikeComparable>(_ column: CRUDColumn<Model, Text>) -> CRUDColumnFunction<Model, Text> {
    CRUDColumnFunction(.caseInsensitive, CRUDColumnReference(column))
}

import Foundation

infix operator ~: ComparisonPrecedence
infix operator !~: ComparisonPrecedence
infix operator %=%: ComparisonPrecedence
infix operator =%: ComparisonPrecedence
infix operator %!=%: ComparisonPrecedence
infix operator !=%: ComparisonPrecedence
infix operator %!=: ComparisonPrecedence

@inlinable
func comparison<Model: CRUDModel, Value: CRUDValue>(
    _ keyPath: KeyPath<Model, Value>, _ operation: ComparisonOperator, _ value: Value
) -> CRUDBooleanExpression {
    comparison(CRUDColumnReference(keyPath), operation, value)
}

@inlinable
func comparison<Value: CRUDValue>(_ reference: CRUDColumnReference, _ operation: ComparisonOperator, _ value: Value) -> CRUDBooleanExpression {
    do {
        return CRUDBooleanExpression(.compare(reference, operation, try CRUDDatabaseValue(value)))
    } catch {
        return CRUDBooleanExpression(.invalid(error))
    }
}

/// The column equals the value; with `nil` on an optional column, `IS NULL`.
@inlinable
public func == <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(lhs, .equal, rhs)
}

/// The column differs from the value; with `nil` on an optional column, `IS NOT NULL`.
@inlinable
public func != <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(lhs, .notEqual, rhs)
}

/// The column's value is less than the value (`nil` is refused: only `==` and `!=` compare with it).
@inlinable
public func < <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(lhs, .less, rhs)
}

/// The column's value is at most the value (`nil` is refused: only `==` and `!=` compare with it).
@inlinable
public func <= <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(lhs, .lessOrEqual, rhs)
}

/// The column's value is greater than the value (`nil` is refused: only `==` and `!=` compare with it).
@inlinable
public func > <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(lhs, .greater, rhs)
}

/// The column's value is at least the value (`nil` is refused: only `==` and `!=` compare with it).
@inlinable
public func >= <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(lhs, .greaterOrEqual, rhs)
}

/// Both conditions hold (`AND`).
public func && (lhs: CRUDBooleanExpression, rhs: CRUDBooleanExpression) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.and(lhs.node, rhs.node))
}

/// Either condition holds (`OR`).
public func || (lhs: CRUDBooleanExpression, rhs: CRUDBooleanExpression) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.or(lhs.node, rhs.node))
}

/// The condition does not hold (`NOT`); a NULL comparison stays unmatched, as in SQL.
public prefix func ! (expression: CRUDBooleanExpression) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.not(expression.node))
}

private func containment<Model: CRUDModel, Value: CRUDValue>(
    _ keyPath: KeyPath<Model, Value>, _ values: [Value], negated: Bool
) -> CRUDBooleanExpression {
    containment(CRUDColumnReference(keyPath), values, negated: negated)
}

func containment<Value: CRUDValue>(_ reference: CRUDColumnReference, _ values: [Value], negated: Bool) -> CRUDBooleanExpression {
    do {
        return CRUDBooleanExpression(.contained(reference, try values.map { try CRUDDatabaseValue($0) }, negated: negated))
    } catch {
        return CRUDBooleanExpression(.invalid(error))
    }
}

/// The column's value is one of the values (`IN`).
public func ~ <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: [Value]) -> CRUDBooleanExpression {
    containment(lhs, rhs, negated: false)
}

/// The column's value is none of the values (`NOT IN`).
public func !~ <Model: CRUDModel, Value: CRUDValue>(lhs: KeyPath<Model, Value>, rhs: [Value]) -> CRUDBooleanExpression {
    containment(lhs, rhs, negated: true)
}

/// The column types the LIKE operators (`%=%`, `=%`, `%=`, `%!=%`, `!=%`, `%!=`) take: `String`
/// and `String?`. A NULL column matches none of them, the negated forms included, as `!=` does not
/// match NULL either: add `|| \.name == nil` to include such rows.
public protocol CRUDLikeComparable: CRUDValue {}

extension String: CRUDLikeComparable {}
extension Optional: CRUDLikeComparable where Wrapped == String {}

private func like<Model: CRUDModel, Text: CRUDLikeComparable>(
    _ keyPath: KeyPath<Model, Text>, _ pattern: LikePattern, _ text: String, negated: Bool
) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.like(CRUDColumnReference(keyPath), pattern, text, negated: negated))
}

/// Contains the text (`%`, `_` and `\` in it match literally; case-sensitive on every backend).
public func %=% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: KeyPath<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    like(lhs, .contains, rhs, negated: false)
}

/// Begins with the text.
public func =% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: KeyPath<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    like(lhs, .beginsWith, rhs, negated: false)
}

/// Ends with the text. `%=` is the standard library's remainder-assignment operator, so it binds
/// more loosely than `&&`: parenthesize it inside larger expressions, `(\.name %= "son") && …`.
public func %= <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: KeyPath<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    like(lhs, .endsWith, rhs, negated: false)
}

/// Does not contain the text (a NULL column matches neither this nor `%=%`).
public func %!=% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: KeyPath<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    like(lhs, .contains, rhs, negated: true)
}

/// Does not begin with the text (a NULL column matches neither this nor `=%`).
public func !=% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: KeyPath<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    like(lhs, .beginsWith, rhs, negated: true)
}

/// Does not end with the text (a NULL column matches neither this nor `%=`).
public func %!= <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: KeyPath<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    like(lhs, .endsWith, rhs, negated: true)
}

// The README's operators on the generated column constants, as Sqlable writes its filters:
// `where(Bicycle.Columns.color == "red" && !(Bicycle.Columns.id == 0))`. They are type-checked as
// the key-path forms are: a column holding `Int` compares only with `Int`.

/// The column equals the value; with `nil` on an optional column, `IS NULL`.
public func == <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(ColumnReference(lhs), .equal, rhs)
}

/// The column differs from the value; with `nil` on an optional column, `IS NOT NULL`.
public func != <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(ColumnReference(lhs), .notEqual, rhs)
}

public func < <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(ColumnReference(lhs), .less, rhs)
}

public func <= <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(ColumnReference(lhs), .lessOrEqual, rhs)
}

public func > <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(ColumnReference(lhs), .greater, rhs)
}

public func >= <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: Value) -> CRUDBooleanExpression {
    comparison(ColumnReference(lhs), .greaterOrEqual, rhs)
}

/// The column's value is one of the values (`IN`).
public func ~ <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: [Value]) -> CRUDBooleanExpression {
    containment(ColumnReference(lhs), rhs, negated: false)
}

/// The column's value is none of the values (`NOT IN`).
public func !~ <Model: CRUDModel, Value: CRUDValue>(lhs: CRUDColumn<Model, Value>, rhs: [Value]) -> CRUDBooleanExpression {
    containment(ColumnReference(lhs), rhs, negated: true)
}

/// Contains the text (literally, case-sensitively).
public func %=% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: CRUDColumn<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.like(ColumnReference(lhs), .contains, rhs, negated: false))
}

/// Begins with the text.
public func =% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: CRUDColumn<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.like(ColumnReference(lhs), .beginsWith, rhs, negated: false))
}

/// Ends with the text (parenthesize it inside `&&` and `||`, as with the key-path form).
public func %= <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: CRUDColumn<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.like(ColumnReference(lhs), .endsWith, rhs, negated: false))
}

/// Does not contain the text (NULL matches neither form).
public func %!=% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: CRUDColumn<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.like(ColumnReference(lhs), .contains, rhs, negated: true))
}

/// Does not begin with the text.
public func !=% <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: CRUDColumn<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.like(ColumnReference(lhs), .beginsWith, rhs, negated: true))
}

/// Does not end with the text.
public func %!= <Model: CRUDModel, Text: CRUDLikeComparable>(lhs: CRUDColumn<Model, Text>, rhs: String) -> CRUDBooleanExpression {
    CRUDBooleanExpression(.like(ColumnReference(lhs), .endsWith, rhs, negated: true))
}

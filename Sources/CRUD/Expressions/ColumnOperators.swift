// The README's operators on the generated column constants and on functions of columns, as
// Sqlable writes its filters: `where(Bicycle.Columns.color == "red" && !(Bicycle.Columns.id == 0))`,
// `where(lower(\Person.lastName) == "lars")`. They are type-checked as the key-path forms are: an
// operand holding `Int` compares only with `Int`.

/// The column equals the value; with `nil` on an optional column, `IS NULL`.
public func == <Operand: CRUDColumnOperand>(lhs: Operand, rhs: Operand.Value) -> CRUDBooleanExpression {
    comparison(lhs.crudReference, .equal, rhs)
}

/// The column differs from the value; with `nil` on an optional column, `IS NOT NULL`.
public func != <Operand: CRUDColumnOperand>(lhs: Operand, rhs: Operand.Value) -> CRUDBooleanExpression {
    comparison(lhs.crudReference, .notEqual, rhs)
}

/// The column's value is less than the value (`nil` is refused: only `==` and `!=` compare with it).
public func < <Operand: CRUDColumnOperand>(lhs: Operand, rhs: Operand.Value) -> CRUDBooleanExpression {
    comparison(lhs.crudReference, .less, rhs)
}

/// The column's value is at most the value (`nil` is refused: only `==` and `!=` compare with it).
public func <= <Operand: CRUDColumnOperand>(lhs: Operand, rhs: Operand.Value) -> CRUDBooleanExpression {
    comparison(lhs.crudReference, .lessOrEqual, rhs)
}

/// The column's value is greater than the value (`nil` is refused: only `==` and `!=` compare with it).
public func > <Operand: CRUDColumnOperand>(lhs: Operand, rhs: Operand.Value) -> CRUDBooleanExpression {
    comparison(lhs.crudReference, .greater, rhs)
}

/// The column's value is at least the value (`nil` is refused: only `==` and `!=` compare with it).
public func >= <Operand: CRUDColumnOperand>(lhs: Operand, rhs: Operand.Value) -> CRUDBooleanExpression {
    comparison(lhs.crudReference, .greaterOrEqual, rhs)
}

/// The column's value is one of the values (`IN`).
public func ~ <Operand: CRUDColumnOperand>(lhs: Operand, rhs: [Operand.Value]) -> CRUDBooleanExpression {
    containment(lhs.crudReference, rhs, negated: false)
}

/// The column's value is none of the values (`NOT IN`).
public func !~ <Operand: CRUDColumnOperand>(lhs: Operand, rhs: [Operand.Value]) -> CRUDBooleanExpression {
    containment(lhs.crudReference, rhs, negated: true)
}

/// Contains the text (literally, case-sensitively).
public func %=% <Operand: CRUDColumnOperand>(lhs: Operand, rhs: String) -> CRUDBooleanExpression
    where Operand.Value: CRUDLikeComparable {
    CRUDBooleanExpression(.like(lhs.crudReference, .contains, rhs, negated: false))
}

/// Begins with the text.
public func =% <Operand: CRUDColumnOperand>(lhs: Operand, rhs: String) -> CRUDBooleanExpression
    where Operand.Value: CRUDLikeComparable {
    CRUDBooleanExpression(.like(lhs.crudReference, .beginsWith, rhs, negated: false))
}

/// Ends with the text (parenthesize it inside `&&` and `||`, as with the key-path form).
public func %= <Operand: CRUDColumnOperand>(lhs: Operand, rhs: String) -> CRUDBooleanExpression
    where Operand.Value: CRUDLikeComparable {
    CRUDBooleanExpression(.like(lhs.crudReference, .endsWith, rhs, negated: false))
}

/// Does not contain the text (NULL matches neither form).
public func %!=% <Operand: CRUDColumnOperand>(lhs: Operand, rhs: String) -> CRUDBooleanExpression
    where Operand.Value: CRUDLikeComparable {
    CRUDBooleanExpression(.like(lhs.crudReference, .contains, rhs, negated: true))
}

/// Does not begin with the text.
public func !=% <Operand: CRUDColumnOperand>(lhs: Operand, rhs: String) -> CRUDBooleanExpression
    where Operand.Value: CRUDLikeComparable {
    CRUDBooleanExpression(.like(lhs.crudReference, .beginsWith, rhs, negated: true))
}

/// Does not end with the text.
public func %!= <Operand: CRUDColumnOperand>(lhs: Operand, rhs: String) -> CRUDBooleanExpression
    where Operand.Value: CRUDLikeComparable {
    CRUDBooleanExpression(.like(lhs.crudReference, .endsWith, rhs, negated: true))
}

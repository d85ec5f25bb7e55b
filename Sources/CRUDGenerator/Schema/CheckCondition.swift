/// A typed check's condition (`\Bicycle.wheels >= 1 && \Bicycle.wheels <= 3`) in standard SQL, with
/// its values written in: exactly what the runtime's `SQLBuilder.standardCheck` writes from the same
/// expression, so that a frozen step and `create` make one constraint.
enum CheckCondition {
    /// The SQL of `expression`; `column` resolves a key path to its column's name and storage.
    /// - Throws: `ExpressionProblem` at what is not a comparison of a column with a literal, `&&`,
    ///   `||`, `!` or parentheses.
    static func sql(_ expression: Expression, column: (Expression) throws -> SnapshotColumn) throws -> String {
        switch expression {
        case let .binary("&&", left, right, _):
            return "(\(try sql(left, column: column)) AND \(try sql(right, column: column)))"
        case let .binary("||", left, right, _):
            return "(\(try sql(left, column: column)) OR \(try sql(right, column: column)))"
        case let .not(inner, _):
            return "NOT (\(try sql(inner, column: column)))"
        case let .binary(operation, left, right, offset):
            let target = try column(left)
            let quoted = "\"" + target.name.replacing("\"", with: "\"\"") + "\""
            if case .name("nil", _) = right {
                switch operation {
                case "==": return quoted + " IS NULL"
                case "!=": return quoted + " IS NOT NULL"
                default: throw ExpressionProblem(offset: offset, message: "a comparison with nil is == nil or != nil")
                }
            }
            let spelled = ["==": "=", "!=": "<>"][operation] ?? operation
            return "\(quoted) \(spelled) \(try literal(right, for: target))"
        default:
            throw ExpressionProblem(offset: expression.offset, message: "a typed check compares key paths with literals, joined by &&, || and !; "
                + "write anything else as SQL text, .check(\"…\")")
        }
    }

    /// `expression`, a literal, as the column `target` stores it, in standard SQL.
    private static func literal(_ expression: Expression, for target: SnapshotColumn) throws -> String {
        switch (target.type, expression) {
        case let (.integer, .integer(value, _)):
            return String(value)
        case let (.real(bits), .integer(value, _)):
            return String(bits == 32 ? Double(Float(value)) : Double(value))
        case let (.real(bits), .real(value, _)):
            return String(bits == 32 ? Double(Float(value)) : value)
        case (.bool, .name("true", _)):
            return "TRUE"
        case (.bool, .name("false", _)):
            return "FALSE"
        case let (.text, .string(value, _)):
            return "'" + value.replacing("'", with: "''") + "'"
        default:
            throw ExpressionProblem(offset: expression.offset, message: "a typed check compares '\(target.name)' (\(target.type)) with a literal "
                + "of its type (a number, a string, true or false) or nil; write anything else as SQL text, .check(\"…\")")
        }
    }
}

/// A Swift expression of the small kind that declarations read by value are written in: calls with
/// labeled arguments, member accesses, array literals, key paths and literals. Anything else is
/// `.other`, which the reader reports where it needs a value.
indirect enum Expression {
    /// `callee(label: value, …)`.
    case call(Expression, [Argument], offset: Int)
    /// `base.name`, or `.name` without a base.
    case member(Expression?, String, offset: Int)
    /// A plain name: `CRUDSchemaTable`, `true`, `nil`.
    case name(String, offset: Int)
    /// A string literal with a value known without running code.
    case string(String, offset: Int)
    /// An integer literal.
    case integer(Int, offset: Int)
    /// A floating-point literal.
    case real(Double, offset: Int)
    /// `left op right`, for the comparison and logical operators (`==`, `<=`, `&&`, …).
    case binary(String, Expression, Expression, offset: Int)
    /// `!operand`.
    case not(Expression, offset: Int)
    /// `[a, b]`.
    case array([Expression], offset: Int)
    /// `\Root.a.b` or `\.a`.
    case keyPath(root: String?, path: [String], offset: Int)
    /// Anything this reader does not read.
    case other(offset: Int)

    struct Argument {
        var label: String?
        var value: Expression
    }

    /// Where the expression starts, in bytes.
    var offset: Int {
        switch self {
        case let .call(_, _, offset), let .member(_, _, offset), let .name(_, offset), let .string(_, offset), let .integer(_, offset),
             let .real(_, offset), let .binary(_, _, _, offset), let .not(_, offset), let .array(_, offset), let .keyPath(_, _, offset),
             let .other(offset):
            offset
        }
    }

    /// The dotted name of a name or member chain (`CRUD.CRUDSchemaTable`, `.text`), or `nil`.
    var dottedName: String? {
        switch self {
        case let .name(name, _): name
        case let .member(nil, name, _): "." + name
        case let .member(base?, name, _): base.dottedName.map { $0 + "." + name }
        default: nil
        }
    }

    /// The expression parsed from `range` of `file`; `.other` where it is not of the readable kind.
    static func parse(_ range: Range<Int>, of file: SourceFile) -> Expression {
        let tokens = Lexer.tokenize(file).filter { range.contains($0.start) }
        var parser = ExpressionParser(file: file, tokens: tokens)
        let expression = parser.expression()
        return parser.atEnd ? expression : .other(offset: range.lowerBound)
    }
}

/// Why a declaration read by value cannot be read: where, and what to write instead.
struct ExpressionProblem: Error {
    var offset: Int
    var message: String
}

extension Expression {
    /// The value of a plain string literal.
    /// - Throws: `ExpressionProblem` naming `what` for anything else.
    func stringValue(_ what: String) throws -> String {
        guard case let .string(value, _) = self else { throw ExpressionProblem(offset: offset, message: "\(what) must be a plain string literal") }
        return value
    }

    /// The `CRUDReferentialAction` case named by the argument `label` (`.cascade`), `noAction` without one.
    /// - Throws: `ExpressionProblem` for anything but one of its cases.
    static func referentialAction(_ label: String, in arguments: [Argument]) throws -> String {
        guard let value = arguments.first(where: { $0.label == label })?.value else { return "noAction" }
        let actions = ["cascade", "setNull", "setDefault", "restrict", "noAction"]
        guard case let .member(nil, action, _) = value, actions.contains(action) else {
            throw ExpressionProblem(offset: value.offset, message: "\(label) is one of " + actions.map { "." + $0 }.joined(separator: ", "))
        }
        return action
    }
}

/// Reads an `Expression` from tokens; it never fails, and moves forward on every token.
private struct ExpressionParser {
    let file: SourceFile
    let tokens: [Token]
    var index = 0

    var atEnd: Bool { index >= tokens.count }

    private var current: Token? { index < tokens.count ? tokens[index] : nil }

    private func text(_ token: Token) -> String { file.text(of: token) }

    private func isText(_ token: Token?, _ expected: String) -> Bool {
        token.map { text($0) == expected } ?? false
    }

    mutating func expression() -> Expression {
        var expression = primary()
        while let token = current {
            if isText(token, "."), index + 1 < tokens.count, tokens[index + 1].kind == .identifier {
                expression = .member(expression, text(tokens[index + 1]), offset: expression.offset)
                index += 2
            } else if isText(token, "("), !token.startsLine {
                index += 1
                expression = .call(expression, arguments(until: ")"), offset: expression.offset)
            } else {
                break
            }
        }
        return expression
    }

    private mutating func primary() -> Expression {
        guard let token = current else { return .other(offset: file.bytes.count) }
        let offset = token.start
        switch token.kind {
        case .string:
            index += 1
            return stringLiteralValue(text(token)).map { .string($0, offset: offset) } ?? .other(offset: offset)
        case .number:
            index += 1
            return Self.number(text(token), offset: offset)
        case .identifier:
            index += 1
            return .name(text(token), offset: offset)
        case .operator where text(token) == "-" && index + 1 < tokens.count && tokens[index + 1].kind == .number:
            index += 2
            return Self.number("-" + text(tokens[index - 1]), offset: offset)
        case .operator where text(token) == ".":
            index += 1
            guard let name = current, name.kind == .identifier else { return .other(offset: offset) }
            index += 1
            return .member(nil, text(name), offset: offset)
        case .punctuation where text(token) == "[":
            index += 1
            return .array(arguments(until: "]").map(\.value), offset: offset)
        case .punctuation where text(token) == "\\":
            index += 1
            var root: String?
            if let name = current, name.kind == .identifier {
                root = text(name)
                index += 1
            }
            var path: [String] = []
            while isText(current, "."), index + 1 < tokens.count, tokens[index + 1].kind == .identifier {
                path.append(text(tokens[index + 1]))
                index += 2
            }
            return .keyPath(root: root, path: path, offset: offset)
        default:
            index += 1
            return .other(offset: offset)
        }
    }

    /// An integer literal, or else a floating-point one, or `.other`.
    private static func number(_ text: String, offset: Int) -> Expression {
        let digits = text.replacingUnderscores
        if let integer = Int(digits) { return .integer(integer, offset: offset) }
        return Double(digits).map { .real($0, offset: offset) } ?? .other(offset: offset)
    }

    /// How tightly a binary operator binds, as in Swift: comparisons over `&&` over `||`; `nil`
    /// for an operator this reader does not read.
    private static func precedence(_ operation: String) -> Int? {
        switch operation {
        case "||": 1
        case "&&": 2
        case "==", "!=", "<", "<=", ">", ">=": 3
        default: nil
        }
    }

    /// An expression with comparison and logical operators, `!` and parentheses around any of them.
    mutating func condition(binding minimum: Int = 1) -> Expression {
        var left = operand()
        while let token = current, token.kind == .operator, let precedence = Self.precedence(text(token)), precedence >= minimum {
            index += 1
            left = .binary(text(token), left, condition(binding: precedence + 1), offset: left.offset)
        }
        return left
    }

    private mutating func operand() -> Expression {
        guard let token = current else { return .other(offset: file.bytes.count) }
        if token.kind == .operator, text(token) == "!" {
            index += 1
            return .not(operand(), offset: token.start)
        }
        if isText(token, "(") {
            index += 1
            let inner = condition()
            guard isText(current, ")") else { return .other(offset: token.start) }
            index += 1
            return inner
        }
        return expression()
    }

    /// `label: value, …` up to the closing `close`, which it consumes; a trailing comma is allowed.
    private mutating func arguments(until close: String) -> [Expression.Argument] {
        var arguments: [Expression.Argument] = []
        while let token = current {
            if isText(token, close) {
                index += 1
                return arguments
            }
            var label: String?
            if token.kind == .identifier, index + 1 < tokens.count, isText(tokens[index + 1], ":") {
                label = text(token)
                index += 2
            }
            let start = index
            arguments.append(Expression.Argument(label: label, value: condition()))
            if isText(current, ",") {
                index += 1
            } else if !isText(current, close) {
                // Not of the readable kind: skip to the closer, keeping what was read as `.other`.
                arguments[arguments.count - 1].value = .other(offset: tokens[min(start, tokens.count - 1)].start)
                while let next = current, !isText(next, close) { index += 1 }
            }
        }
        return arguments
    }
}

private extension String {
    var replacingUnderscores: String { String(filter { $0 != "_" }) }
}

/// A type annotation, parsed far enough to classify a property: optional, array, named type.
indirect enum TypeSyntax: Equatable {
    /// A dotted name with the generic arguments of its last component: `Foundation.Date`, `Box<Int>`.
    case named([String], arguments: [TypeSyntax])
    case optional(TypeSyntax)
    case array(TypeSyntax)
    case dictionary(TypeSyntax, TypeSyntax)
    /// Anything else: tuples, functions, `some`/`any`, compositions, metatypes.
    case other(String)

    /// Module prefixes that name the same type as the bare name.
    private static let transparentModules: Set<String> = ["Swift", "Foundation"]

    /// Parses compact type text (as the declaration parser records it).
    init(parsing text: String) {
        var parser = TypeTextParser(characters: Array(text))
        if let type = parser.parseType(), parser.isAtEnd {
            self = type
        } else {
            self = .other(text)
        }
    }

    /// The same type with `Optional<T>`, `Array<T>`, `Dictionary<K, V>`, `T!` spelled as sugar and
    /// `Swift.`/`Foundation.` prefixes dropped.
    fileprivate static func normalized(_ path: [String], _ arguments: [TypeSyntax]) -> TypeSyntax {
        var path = path
        if path.count == 2, transparentModules.contains(path[0]) { path.removeFirst() }
        switch (path, arguments.count) {
        case (["Optional"], 1), (["ImplicitlyUnwrappedOptional"], 1): return .optional(arguments[0])
        case (["Array"], 1): return .array(arguments[0])
        case (["Dictionary"], 2): return .dictionary(arguments[0], arguments[1])
        default: return .named(path, arguments: arguments)
        }
    }

    /// Swift source for this type, in its sugared form.
    var rendered: String {
        switch self {
        case let .named(path, arguments):
            let name = path.joined(separator: ".")
            return arguments.isEmpty ? name : name + "<" + arguments.map(\.rendered).joined(separator: ", ") + ">"
        case let .optional(wrapped):
            if case .other = wrapped { return "(" + wrapped.rendered + ")?" }
            return wrapped.rendered + "?"
        case let .array(element):
            return "[" + element.rendered + "]"
        case let .dictionary(key, value):
            return "[" + key.rendered + ": " + value.rendered + "]"
        case let .other(text):
            return text
        }
    }
}

/// Recursive descent over the characters of a compact type. Nesting depth is bounded.
private struct TypeTextParser {
    let characters: [Character]
    var position = 0
    var depth = 0

    var isAtEnd: Bool { position == characters.count }

    private var current: Character? { position < characters.count ? characters[position] : nil }

    mutating func parseType() -> TypeSyntax? {
        depth += 1
        defer { depth -= 1 }
        guard depth < 32, var type = parsePrimary() else { return nil }
        while let next = current, next == "?" || next == "!" {
            position += 1
            type = .optional(type)
        }
        return type
    }

    private mutating func parsePrimary() -> TypeSyntax? {
        guard let first = current else { return nil }
        if first == "[" {
            position += 1
            guard let element = parseType() else { return nil }
            if current == ":" {
                position += 1
                guard let value = parseType(), current == "]" else { return nil }
                position += 1
                return .dictionary(element, value)
            }
            guard current == "]" else { return nil }
            position += 1
            return .array(element)
        }
        var path: [String] = []
        var arguments: [TypeSyntax] = []
        while true {
            guard let name = parseName() else { return nil }
            path.append(name)
            if current == "<" {
                position += 1
                arguments = []
                while true {
                    guard let argument = parseType() else { return nil }
                    arguments.append(argument)
                    if current == "," { position += 1; continue }
                    break
                }
                guard current == ">" else { return nil }
                position += 1
            }
            guard current == ".", position + 1 < characters.count, isNameStart(characters[position + 1]) else { break }
            if !arguments.isEmpty { return nil }
            position += 1
        }
        if path.last == "Type" || path.last == "Protocol" { return nil }
        return TypeSyntax.normalized(path, arguments)
    }

    private func isNameStart(_ character: Character) -> Bool {
        character == "_" || character.isLetter || (!character.isASCII && !character.isWhitespace)
    }

    private mutating func parseName() -> String? {
        if current == "`" {
            guard let close = characters[(position + 1)...].firstIndex(of: "`"), close > position + 1 else { return nil }
            let name = String(characters[(position + 1) ..< close])
            position = close + 1
            return name
        }
        let start = position
        while let character = current, isNameStart(character) || character.isNumber { position += 1 }
        guard start < position else { return nil }
        let name = String(characters[start ..< position])
        return ["some", "any", "inout", "borrowing", "consuming", "sending"].contains(name) ? nil : name
    }
}

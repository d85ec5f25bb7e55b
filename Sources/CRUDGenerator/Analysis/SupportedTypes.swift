/// The column types the runtime stores without any help from the user.
enum SupportedTypes {
    static let scalars: Set<String> = [
        "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Bool", "String", "Data", "Date", "UUID", "URL",
    ]

    /// Element types whose arrays are stored as a blob.
    static let bytes: Set<String> = ["UInt8", "Int8"]

    /// Raw types that make an enum storable.
    static let rawValues: Set<String> = [
        "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Bool", "String",
    ]

    /// The list a diagnostic shows when a type is not one of these.
    static let summary = "Int and UInt of any width, Double, Float, Bool, String, [UInt8], [Int8], Data, Date, UUID, URL, "
        + "their optionals, a type conforming to CRUDValue (an enum with one of these raw types works), "
        + "or JSON: a Codable type marked CRUDJSONValue, or CRUDJSON<T> around any Codable T"

    /// `CRUDJSON<T>`: any `Codable` stored as JSON, which the compiler checks.
    static func isJSONWrapper(_ type: TypeSyntax) -> Bool {
        guard case let .named(path, arguments) = type, arguments.count == 1 else { return false }
        return path == ["CRUDJSON"] || path == ["CRUD", "CRUDJSON"]
    }

    static func isBuiltin(_ type: TypeSyntax) -> Bool {
        switch type {
        case let .named(path, arguments) where arguments.isEmpty && path.count == 1:
            return scalars.contains(path[0])
        case let .array(.named(path, arguments)) where arguments.isEmpty && path.count == 1:
            return bytes.contains(path[0])
        default:
            return false
        }
    }
}

/// Swift keywords that must be backticked where the generated code uses a property's name.
enum SwiftKeywords {
    static let reserved: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "Type", "package",
    ]

    /// The name backticked when it is a keyword.
    static func escaped(_ name: String) -> String {
        reserved.contains(name) ? "`\(name)`" : name
    }
}

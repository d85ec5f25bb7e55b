/// What the parser keeps of a file: type declarations and extensions with the members model analysis
/// needs. Function bodies, statements and expressions are skipped.

/// One parsed input file.
struct ParsedFile {
    var file: SourceFile
    /// Type declarations and extensions at file scope; nested ones hang below them.
    var types: [TypeDeclaration]
    /// File-scope `typealias` declarations.
    var typealiases: [TypealiasDeclaration]
    var imports: [ImportDeclaration]
    /// Types declared `CRUDModel` inside a function, closure or top-level code.
    var localModels: [LocalModelDeclaration] = []
}

/// A model declared where generated code cannot extend it: in a function, closure or top-level code.
struct LocalModelDeclaration {
    var name: String
    /// Where its `struct` (or `class`, `enum`, `actor`) keyword starts.
    var offset: Int
}

/// A `struct`, `class`, `enum`, `actor`, `protocol` or `extension` and its members.
struct TypeDeclaration {
    enum Kind: String {
        case `struct`, `class`, `enum`, actor, `protocol`, `extension`
    }

    var kind: Kind
    /// The declared name, or for an extension the extended type as written (`Outer.Inner`).
    var name: String
    /// Names of the enclosing types, outermost first (empty at file scope).
    var enclosing: [String]
    /// Byte offset of the keyword (`struct`), where diagnostics about the whole type point.
    var offset: Int
    /// Byte offset of the name, where diagnostics about the name or its generic parameters point.
    var nameOffset: Int
    /// The inheritance list as written, one entry per type, without spaces (`CRUD.CRUDModel`).
    var inheritance: [String]
    var isGeneric: Bool
    /// Modifiers before the keyword (`public`, `final`, …).
    var modifiers: [String]
    /// Attribute names before the keyword, without `@` (`available`, `MainActor`).
    var attributes: [String] = []
    /// The `#if` conditions the declaration sits under, joined with `&&`; `nil` when unconditional.
    var condition: String?
    var properties: [PropertyDeclaration] = []
    /// Whether the body declares an initializer, or expands a macro that might: either way Swift
    /// synthesizes no memberwise initializer.
    var mayDeclareInitializer = false
    var enumCases: [EnumCaseDeclaration] = []
    var nestedTypes: [TypeDeclaration] = []
    var typealiases: [TypealiasDeclaration] = []

    /// The full dotted name as seen from file scope.
    var qualifiedName: String {
        (enclosing + [name]).joined(separator: ".")
    }
}

/// One name bound by a `var` or `let` declaration.
struct PropertyDeclaration {
    var name: String
    var offset: Int
    var isLet: Bool
    /// `static` or `class`.
    var isStatic: Bool
    var isLazy: Bool
    /// Has a getter instead of storage (`var x: Int { … }` without only observers).
    var isComputed: Bool
    /// The type annotation with whitespace and comments removed, or `nil` when there is none.
    var type: String?
    var typeOffset: Int?
    var hasInitializer: Bool
    /// The initializer when it is a single literal.
    var literal: Literal?
    /// Where the initializer's expression is, or a computed property's body (between its braces),
    /// as byte offsets: what a declaration read by value (`crudConstraints`) is parsed from.
    var value: Range<Int>? = nil
    /// Modifiers as written, `private(set)` included.
    var modifiers: [String]
    /// Attribute names without `@` (`available`, `Published`).
    var attributes: [String]
    /// Declared under an `#if` inside its type's body.
    var isConditional: Bool
    /// A tuple pattern (`let (a, b): (Int, Int)`), which no column can map.
    var isTuplePattern: Bool
}

/// A literal initializer, enough to infer a column type or read a `tableName`.
enum Literal: Equatable {
    case string(String)
    /// A string literal that is not a plain constant: interpolated or multi-line.
    case complexString
    case integer
    case float
    case bool
}

/// One case of an enum, as `CodingKeys` needs it.
struct EnumCaseDeclaration {
    var name: String
    var offset: Int
    /// The raw value when it is a string literal.
    var rawValue: String?
    /// Byte offset of the raw value, for diagnostics about it.
    var rawValueOffset: Int?
    var hasAssociatedValues: Bool
    var isConditional: Bool
}

/// `typealias Name = Type`.
struct TypealiasDeclaration {
    var name: String
    var type: String
}

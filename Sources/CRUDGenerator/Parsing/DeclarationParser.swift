/// Finds type declarations, extensions and their stored-property-relevant members in a token stream.
///
/// It is a skimmer, not a Swift parser: it understands declarations well enough to read models and
/// skips everything else by balancing brackets, iteratively, so no input makes it recurse without
/// bound. Malformed input yields fewer declarations, never a crash.
struct DeclarationParser {
    /// Types nested deeper than this are skipped as opaque bodies.
    static let maximumTypeNesting = 64

    private let file: SourceFile
    private let tokens: [Token]
    private var index = 0
    /// Types declared `CRUDModel` inside skipped code (a function or closure body, top-level code):
    /// generated code cannot extend a local type, so the analyzer reports them.
    private var localModels: [LocalModelDeclaration] = []

    static func parse(_ file: SourceFile) -> ParsedFile {
        var parser = DeclarationParser(file: file, tokens: Lexer.tokenize(file))
        let members = parser.parseScope(Scope(enclosing: [], condition: [], isBody: false, isEnum: false))
        return ParsedFile(file: file, types: members.nestedTypes, typealiases: members.typealiases, imports: members.imports,
                          localModels: parser.localModels)
    }

    private init(file: SourceFile, tokens: [Token]) {
        self.file = file
        self.tokens = tokens
    }

    /// Where members are being read: the file, or the body of a type.
    private struct Scope {
        var enclosing: [String]
        /// Conditions of the `#if` blocks around this scope.
        var condition: [String]
        var isBody: Bool
        var isEnum: Bool
    }

    /// One open `#if` block: the negations of the branches already passed, and the current branch.
    private struct ConditionFrame {
        var passed: [String]
        var current: [String]
    }

    /// What a scope holds; a type declaration's members are filled from it.
    private struct Members {
        var properties: [PropertyDeclaration] = []
        var mayDeclareInitializer = false
        var enumCases: [EnumCaseDeclaration] = []
        var nestedTypes: [TypeDeclaration] = []
        var typealiases: [TypealiasDeclaration] = []
        var imports: [ImportDeclaration] = []
    }

    // MARK: - Token helpers

    private func text(_ token: Token) -> String { file.text(of: token) }

    private func isPunctuation(_ token: Token, _ character: UInt8) -> Bool {
        token.kind == .punctuation && file.bytes[token.start] == character
    }

    private func isOperator(_ token: Token, _ spelling: String) -> Bool {
        token.kind == .operator && text(token) == spelling
    }

    private func isIdentifier(_ token: Token, _ spelling: String) -> Bool {
        token.kind == .identifier && text(token) == spelling
    }

    private var current: Token? { index < tokens.count ? tokens[index] : nil }

    private func peek(_ offset: Int = 1) -> Token? {
        index + offset < tokens.count ? tokens[index + offset] : nil
    }

    /// A name token without backticks.
    private func name(_ token: Token) -> String {
        let spelled = text(token)
        if spelled.count >= 2, spelled.hasPrefix("`"), spelled.hasSuffix("`") {
            return String(spelled.dropFirst().dropLast())
        }
        return spelled
    }

    /// From an opening bracket at `index`, moves past its matching closer (or to the end of input).
    /// Closers of another kind end the run too, so a stray `}` inside parentheses cannot swallow the
    /// rest of the file.
    /// Skips a bracketed run; what it skips is code, not members, so a model declared there is
    /// local (`findingLocalModels`, unless the run is a type body too deep to read).
    private mutating func skipBalanced(findingLocalModels: Bool = true) {
        var stack: [UInt8] = []
        while let token = current {
            index += 1
            if findingLocalModels, token.kind == .identifier, !stack.isEmpty { noteLocalModel(at: index - 1) }
            guard token.kind == .punctuation else { continue }
            switch file.bytes[token.start] {
            case Ascii.openParen: stack.append(Ascii.closeParen)
            case Ascii.openBracket: stack.append(Ascii.closeBracket)
            case Ascii.openBrace: stack.append(Ascii.closeBrace)
            case let closer where closer == Ascii.closeParen || closer == Ascii.closeBracket || closer == Ascii.closeBrace:
                while let expected = stack.popLast(), expected != closer {}
                if stack.isEmpty { return }
            default: break
            }
            if stack.isEmpty { return }
        }
    }

    /// Records a `struct`, `class`, `enum` or `actor` at `position` that lists `CRUDModel` (or a
    /// protocol refining it) among what it conforms to.
    private mutating func noteLocalModel(at position: Int) {
        let keyword = tokens[position]
        // Most identifiers in code start with none of these letters: no text is made for them.
        guard [UInt8(ascii: "s"), UInt8(ascii: "c"), UInt8(ascii: "e"), UInt8(ascii: "a")].contains(file.bytes[keyword.start]),
              ["struct", "class", "enum", "actor"].contains(text(keyword)), position + 1 < tokens.count,
              tokens[position + 1].kind == .identifier else { return }
        var cursor = position + 2
        var inInheritance = false
        while cursor < tokens.count, cursor < position + 64 {
            let token = tokens[cursor]
            if isPunctuation(token, Ascii.openBrace) || isIdentifier(token, "where") { return }
            if isPunctuation(token, Ascii.colon) { inInheritance = true }
            if inInheritance, token.kind == .identifier, ModelProtocols.names.contains(text(token)) {
                localModels.append(LocalModelDeclaration(name: name(tokens[position + 1]), offset: keyword.start))
                return
            }
            cursor += 1
        }
    }

    private func isOpener(_ token: Token) -> Bool {
        isPunctuation(token, Ascii.openParen) || isPunctuation(token, Ascii.openBracket) || isPunctuation(token, Ascii.openBrace)
    }

    /// The net `<` minus `>` in an operator token, `->` not counted: type syntax lexes `>>` or `?>`
    /// as one operator run.
    private func angleBalance(_ token: Token) -> Int {
        guard token.kind == .operator else { return 0 }
        var balance = 0
        var previousByte: UInt8 = 0
        for offset in token.start ..< token.end {
            let byte = file.bytes[offset]
            if byte == Ascii.openAngle { balance += 1 }
            if byte == Ascii.closeAngle, previousByte != Ascii.minus { balance -= 1 }
            previousByte = byte
        }
        return balance
    }

    /// Tokens' text joined without whitespace, except between two words (`some P`).
    private func compactText(_ range: Range<Int>) -> String {
        var result = ""
        var previousWasWord = false
        for token in tokens[range] {
            let isWord = token.kind == .identifier || token.kind == .number
            if isWord, previousWasWord { result += " " }
            result += text(token)
            previousWasWord = isWord
        }
        return result
    }

    // MARK: - Scopes

    private static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "static", "final", "lazy",
        "mutating", "nonmutating", "override", "required", "convenience", "dynamic", "weak", "unowned",
        "optional", "indirect", "nonisolated", "isolated", "distributed", "prefix", "postfix", "infix",
        "consuming", "borrowing", "__consuming", "sending",
    ]

    /// The `#` words that are no macro (a macro in a type's body may add members).
    private static let compilerDirectives: Set<String> = ["#if", "#elseif", "#else", "#endif", "#sourceLocation", "#warning", "#error"]

    private static let skippedDeclarations: Set<String> = [
        "func", "init", "deinit", "subscript", "operator", "precedencegroup", "associatedtype", "macro",
    ]

    private mutating func parseScope(_ scope: Scope) -> Members {
        var members = Members()
        var frames: [ConditionFrame] = []
        var modifiers: [String] = []
        /// The attributes before the next declaration: each name, and its whole spelling with arguments.
        var attributes: [(name: String, spelling: String)] = []
        func condition() -> [String] { scope.condition + frames.flatMap(\.current) }

        while let token = current {
            switch token.kind {
            case .punctuation where isPunctuation(token, Ascii.closeBrace):
                index += 1
                if scope.isBody { return members }
                modifiers = []
                attributes = []
            case .punctuation where isOpener(token):
                skipBalanced()
                modifiers = []
                attributes = []
            case .punctuation where isPunctuation(token, Ascii.at):
                let start = index
                index += 1
                if let attribute = current, attribute.kind == .identifier {
                    index += 1
                    skipAdjacentParentheses(after: attribute)
                    attributes.append((name(attribute), file.text(tokens[start].start ..< tokens[index - 1].end)))
                }
            case .pound:
                if !Self.compilerDirectives.contains(text(token)) { members.mayDeclareInitializer = true }
                readDirective(token, frames: &frames)
            case .identifier:
                let word = text(token)
                if word == "class", let next = peek(), next.kind == .identifier,
                   Self.modifiers.contains(text(next)) || ["var", "let", "func", "subscript", "class"].contains(text(next)) {
                    modifiers.append(word)
                    index += 1
                } else if Self.modifiers.contains(word) {
                    index += 1
                    let spelled = readModifierArgument(after: token)
                    modifiers.append(word + spelled)
                } else if let kind = TypeDeclaration.Kind(rawValue: word) {
                    if let declaration = parseType(kind, scope: scope, condition: condition(), modifiers: modifiers,
                                                   attributes: attributes.map(\.name)) {
                        members.nestedTypes.append(declaration)
                    }
                    modifiers = []
                    attributes = []
                } else if word == "var" || word == "let" {
                    parseProperties(isLet: word == "let", modifiers: modifiers, attributes: attributes.map(\.name),
                                    isConditional: !frames.isEmpty, into: &members.properties)
                    modifiers = []
                    attributes = []
                } else if word == "case", scope.isEnum {
                    parseEnumCases(isConditional: !frames.isEmpty, into: &members.enumCases)
                    modifiers = []
                    attributes = []
                } else if word == "typealias" {
                    if let alias = parseTypealias() { members.typealiases.append(alias) }
                    modifiers = []
                    attributes = []
                } else if Self.skippedDeclarations.contains(word) {
                    if word == "init" { members.mayDeclareInitializer = true }
                    skipDeclaration()
                    modifiers = []
                    attributes = []
                } else if word == "import" {
                    let start = index
                    index += 1
                    while let next = current, !next.startsLine { index += 1 }
                    if !scope.isBody {
                        // Attributes are copied whole (`@_spi(Name)`), except `@_exported`: the
                        // generated file must never re-export a module.
                        let spelled = attributes.filter { $0.name != "_exported" }.map { $0.spelling + " " }.joined()
                            + modifiers.map { $0 + " " }.joined() + compactText(start ..< index)
                        let clause = condition()
                        members.imports.append(ImportDeclaration(
                            text: spelled, condition: clause.isEmpty ? nil : clause.joined(separator: " && ")))
                    }
                    modifiers = []
                    attributes = []
                } else {
                    index += 1
                    modifiers = []
                    attributes = []
                }
            default:
                index += 1
                modifiers = []
                attributes = []
            }
        }
        return members
    }

    /// After a modifier, reads `(set)` or `(unsafe)` when it follows with no space.
    private mutating func readModifierArgument(after token: Token) -> String {
        guard let open = current, isPunctuation(open, Ascii.openParen), open.start == token.end else { return "" }
        let start = index
        skipBalanced()
        return compactText(start ..< index)
    }

    private mutating func skipAdjacentParentheses(after token: Token) {
        if let open = current, isPunctuation(open, Ascii.openParen), open.start == token.end {
            skipBalanced()
        }
    }

    /// `#if`, `#elseif`, `#else`, `#endif` update the condition frames; other `#` forms are skipped
    /// with their arguments.
    private mutating func readDirective(_ token: Token, frames: inout [ConditionFrame]) {
        let directive = text(token)
        index += 1
        switch directive {
        case "#if", "#elseif":
            let start = index
            while let next = current, !next.startsLine { index += 1 }
            let clause = "(" + (start < index ? file.text(tokens[start].start ..< tokens[index - 1].end) : "false") + ")"
            if directive == "#if" {
                frames.append(ConditionFrame(passed: ["!" + clause], current: [clause]))
            } else if var frame = frames.popLast() {
                frame.current = frame.passed + [clause]
                frame.passed.append("!" + clause)
                frames.append(frame)
            }
        case "#else":
            if var frame = frames.popLast() {
                frame.current = frame.passed
                frames.append(frame)
            }
        case "#endif":
            _ = frames.popLast()
        default:
            skipAdjacentParentheses(after: token)
        }
    }

    // MARK: - Types

    private mutating func parseType(_ kind: TypeDeclaration.Kind, scope: Scope, condition: [String], modifiers: [String],
                                    attributes: [String]) -> TypeDeclaration? {
        let keyword = tokens[index]
        index += 1
        guard let nameToken = current, nameToken.kind == .identifier else { return nil }
        var typeName = name(nameToken)
        index += 1
        if kind == .extension {
            while let dot = current, isOperator(dot, "."), let part = peek(), part.kind == .identifier {
                typeName += "." + name(part)
                index += 2
            }
        }
        var isGeneric = false
        if let open = current, open.kind == .operator, open.start == nameToken.end || kind == .extension,
           text(open).hasPrefix("<") {
            isGeneric = true
            skipAngleBrackets()
        }
        var inheritance: [String] = []
        if let colon = current, isPunctuation(colon, Ascii.colon) {
            index += 1
            inheritance = readInheritance()
        }
        while let next = current, !isPunctuation(next, Ascii.openBrace), !isPunctuation(next, Ascii.closeBrace) {
            if next.startsLine, next.kind == .identifier, Self.skippedDeclarations.contains(text(next)) { break }
            if isOpener(next) { skipBalanced() } else { index += 1 }
        }
        var declaration = TypeDeclaration(
            kind: kind, name: typeName, enclosing: scope.enclosing, offset: keyword.start, nameOffset: nameToken.start,
            inheritance: inheritance, isGeneric: isGeneric, modifiers: modifiers, attributes: attributes,
            condition: condition.isEmpty ? nil : condition.joined(separator: " && "))
        guard let open = current, isPunctuation(open, Ascii.openBrace) else { return declaration }
        guard scope.enclosing.count < Self.maximumTypeNesting else {
            skipBalanced(findingLocalModels: false)
            return declaration
        }
        index += 1
        let members = parseScope(Scope(
            enclosing: scope.enclosing + typeName.split(separator: ".").map(String.init),
            condition: condition, isBody: true, isEnum: kind == .enum))
        declaration.properties = members.properties
        declaration.mayDeclareInitializer = members.mayDeclareInitializer
        declaration.enumCases = members.enumCases
        declaration.nestedTypes = members.nestedTypes
        declaration.typealiases = members.typealiases
        return declaration
    }

    private mutating func skipAngleBrackets() {
        var depth = 0
        while let token = current {
            if isOpener(token) {
                skipBalanced()
                continue
            }
            if isPunctuation(token, Ascii.closeBrace) { return }
            depth += angleBalance(token)
            index += 1
            if depth <= 0 { return }
        }
    }

    /// Reads `A, B.C, D<E> & F` up to `where` or `{`.
    private mutating func readInheritance() -> [String] {
        var entries: [String] = []
        var start = index
        var depth = 0
        func finish(_ end: Int) {
            let entry = compactText(start ..< end)
            entries += entry.split(separator: "&").map(String.init).filter { !$0.isEmpty }
        }
        while let token = current {
            if depth == 0, isPunctuation(token, Ascii.openBrace) || isIdentifier(token, "where") || isPunctuation(token, Ascii.closeBrace) {
                break
            }
            if depth == 0, isPunctuation(token, Ascii.comma) {
                finish(index)
                index += 1
                start = index
                continue
            }
            if isPunctuation(token, Ascii.openParen) || isPunctuation(token, Ascii.openBracket) {
                skipBalanced()
                continue
            }
            depth = max(0, depth + angleBalance(token))
            index += 1
        }
        finish(index)
        return entries
    }

    // MARK: - Members

    private mutating func parseProperties(isLet: Bool, modifiers: [String], attributes: [String], isConditional: Bool,
                                          into properties: inout [PropertyDeclaration]) {
        index += 1
        var group: [PropertyDeclaration] = []
        while let pattern = current {
            var property = PropertyDeclaration(
                name: "", offset: pattern.start, isLet: isLet,
                isStatic: modifiers.contains("static") || modifiers.contains("class"),
                isLazy: modifiers.contains("lazy"), isComputed: false, type: nil, typeOffset: nil,
                hasInitializer: false, literal: nil, modifiers: modifiers, attributes: attributes,
                isConditional: isConditional, isTuplePattern: false)
            if pattern.kind == .identifier {
                property.name = name(pattern)
                index += 1
            } else if isPunctuation(pattern, Ascii.openParen) {
                property.isTuplePattern = true
                let start = index
                skipBalanced()
                property.name = compactText(start ..< index)
            } else {
                break
            }
            if let colon = current, isPunctuation(colon, Ascii.colon) {
                index += 1
                let start = index
                skipType()
                if start < index {
                    property.type = compactText(start ..< index)
                    property.typeOffset = tokens[start].start
                }
            }
            if let equals = current, isOperator(equals, "=") {
                index += 1
                property.hasInitializer = true
                property.literal = literal(at: index)
                let start = index
                skipExpression()
                if start < index { property.value = tokens[start].start ..< tokens[index - 1].end }
            }
            if let open = current, isPunctuation(open, Ascii.openBrace) {
                property.isComputed = !isObserverBlock(at: index)
                let start = index
                skipBalanced()
                if property.isComputed, start + 1 < index - 1 { property.value = tokens[start + 1].start ..< tokens[index - 2].end }
            }
            group.append(property)
            guard let comma = current, isPunctuation(comma, Ascii.comma) else { break }
            index += 1
        }
        // In `var a, b: Int` the type written last applies to the names before it.
        var sharedType: (String, Int)?
        for position in group.indices.reversed() {
            if let type = group[position].type, let offset = group[position].typeOffset {
                sharedType = (type, offset)
            } else if !group[position].hasInitializer, let (type, offset) = sharedType {
                group[position].type = type
                group[position].typeOffset = offset
            }
        }
        properties += group
    }

    /// Moves past a type annotation: to `=`, `{`, `,`, `;`, `}` or a new line at bracket depth 0.
    private mutating func skipType() {
        let start = index
        var angles = 0
        while let token = current {
            if index > start, token.startsLine, angles <= 0 { return }
            if angles <= 0 {
                if isPunctuation(token, Ascii.openBrace) || isPunctuation(token, Ascii.comma)
                    || isPunctuation(token, Ascii.semicolon) || isPunctuation(token, Ascii.closeBrace)
                    || isPunctuation(token, Ascii.closeParen) || isPunctuation(token, Ascii.closeBracket)
                    || (token.kind == .operator && text(token).hasPrefix("=") && text(token) != "==") {
                    return
                }
            }
            if isPunctuation(token, Ascii.openParen) || isPunctuation(token, Ascii.openBracket) {
                skipBalanced()
                continue
            }
            if token.kind == .pound || (token.kind == .identifier && ["var", "let", "func", "case"].contains(text(token))) {
                return
            }
            angles += angleBalance(token)
            index += 1
        }
    }

    /// Moves past an initializer expression: to `,`, `;`, `}` at depth 0, to observers, or to a new
    /// line that does not continue the expression with an operator.
    private mutating func skipExpression() {
        let start = index
        while let token = current {
            if index > start, token.startsLine, token.kind != .operator { return }
            if isPunctuation(token, Ascii.comma) || isPunctuation(token, Ascii.semicolon)
                || isPunctuation(token, Ascii.closeBrace) || isPunctuation(token, Ascii.closeParen)
                || isPunctuation(token, Ascii.closeBracket) {
                return
            }
            if isPunctuation(token, Ascii.openBrace), index > start, isObserverBlock(at: index) { return }
            if isOpener(token) {
                skipBalanced()
            } else if !skipGenericArguments() {
                index += 1
            }
        }
    }

    /// Moves past a generic argument clause (`Dictionary<String, Int>()`) when the token at `index`
    /// opens one, so its commas do not end the expression; returns whether it did. As in Swift, the
    /// `<` must touch the name before it, the clause must hold only type syntax, and what follows its
    /// `>` must be able to follow a type: `a < b, c: Int` is a comparison.
    private mutating func skipGenericArguments() -> Bool {
        guard let open = current, isOperator(open, "<"), index > 0,
              tokens[index - 1].kind == .identifier, tokens[index - 1].end == open.start
        else { return false }
        let saved = index
        var depth = 0
        scan: while let token = current, index - saved < 512 {
            switch token.kind {
            case .identifier:
                index += 1
            case .operator:
                let spelling = text(token)
                guard spelling == "->" || spelling.allSatisfy({ "<>?!&.".contains($0) }) else { break scan }
                depth += angleBalance(token)
                index += 1
                if depth <= 0 {
                    guard let next = current, !next.startsLine, !canFollowType(next) else { return true }
                    break scan
                }
            case .punctuation where isPunctuation(token, Ascii.comma) || isPunctuation(token, Ascii.colon):
                index += 1
            case .punctuation where isPunctuation(token, Ascii.openParen) || isPunctuation(token, Ascii.openBracket):
                skipBalanced()
            default:
                break scan
            }
        }
        index = saved
        return false
    }

    /// Whether `token` can come right after a type in an expression: `(`, `)`, `.`, `,`, `?`, `!` and
    /// the like, as Swift requires after a generic argument clause.
    private func canFollowType(_ token: Token) -> Bool {
        switch token.kind {
        case .punctuation:
            return !isPunctuation(token, Ascii.openBrace)
        case .operator:
            let spelling = text(token)
            return spelling.hasPrefix(".") || spelling.hasPrefix("?") || spelling.hasPrefix("!") || spelling == "==" || spelling == "="
        default:
            return false
        }
    }

    /// The literal at `position` when the initializer is exactly that literal.
    private func literal(at position: Int) -> Literal? {
        guard position < tokens.count else { return nil }
        var token = tokens[position]
        var next = position + 1
        if token.kind == .operator, text(token) == "-", next < tokens.count, tokens[next].kind == .number {
            token = tokens[next]
            next += 1
        }
        if next < tokens.count {
            let following = tokens[next]
            let ends = following.startsLine || isPunctuation(following, Ascii.comma)
                || isPunctuation(following, Ascii.semicolon) || isPunctuation(following, Ascii.closeBrace)
                || (isPunctuation(following, Ascii.openBrace) && isObserverBlock(at: next))
            if !ends { return nil }
        }
        switch token.kind {
        case .string:
            return stringLiteralValue(text(token)).map(Literal.string) ?? .complexString
        case .number:
            let spelled = text(token).lowercased()
            let isHex = spelled.hasPrefix("0x")
            let isFloat = spelled.contains(".") || (isHex ? spelled.contains("p") : spelled.contains("e"))
            return isFloat ? .float : .integer
        case .identifier where text(token) == "true" || text(token) == "false":
            return .bool
        default:
            return nil
        }
    }

    /// Whether the `{` at `position` opens `willSet`/`didSet` observers (stored) rather than accessors.
    private func isObserverBlock(at position: Int) -> Bool {
        guard position + 1 < tokens.count, tokens[position + 1].kind == .identifier else { return false }
        return ["willSet", "didSet"].contains(text(tokens[position + 1]))
    }

    private mutating func parseEnumCases(isConditional: Bool, into cases: inout [EnumCaseDeclaration]) {
        index += 1
        while let token = current, token.kind == .identifier {
            var enumCase = EnumCaseDeclaration(
                name: name(token), offset: token.start, rawValue: nil, rawValueOffset: nil,
                hasAssociatedValues: false, isConditional: isConditional)
            index += 1
            if let open = current, isPunctuation(open, Ascii.openParen) {
                enumCase.hasAssociatedValues = true
                skipBalanced()
            }
            if let equals = current, isOperator(equals, "=") {
                index += 1
                if let value = current {
                    enumCase.rawValueOffset = value.start
                    if value.kind == .string { enumCase.rawValue = stringLiteralValue(text(value)) }
                }
                skipExpression()
            }
            cases.append(enumCase)
            guard let comma = current, isPunctuation(comma, Ascii.comma) else { break }
            index += 1
        }
    }

    private mutating func parseTypealias() -> TypealiasDeclaration? {
        index += 1
        guard let nameToken = current, nameToken.kind == .identifier else { return nil }
        index += 1
        if let open = current, open.kind == .operator, text(open).hasPrefix("<") {
            skipAngleBrackets()
            return nil
        }
        guard let equals = current, isOperator(equals, "=") else { return nil }
        index += 1
        let start = index
        skipType()
        guard start < index else { return nil }
        return TypealiasDeclaration(name: name(nameToken), type: compactText(start ..< index))
    }

    /// Moves past a function-like declaration: its signature and, if it has one, its body. A
    /// requirement without a body ends where the next declaration starts.
    private mutating func skipDeclaration() {
        index += 1
        while let token = current {
            if isPunctuation(token, Ascii.openBrace) {
                skipBalanced()
                return
            }
            if isPunctuation(token, Ascii.closeBrace) { return }
            if token.startsLine, token.kind == .pound || isPunctuation(token, Ascii.at)
                || (token.kind == .identifier && (Self.modifiers.contains(text(token))
                    || Self.skippedDeclarations.contains(text(token))
                    || TypeDeclaration.Kind(rawValue: text(token)) != nil
                    || ["var", "let", "case", "typealias", "import"].contains(text(token)))) {
                return
            }
            if isOpener(token) { skipBalanced() } else { index += 1 }
        }
    }
}

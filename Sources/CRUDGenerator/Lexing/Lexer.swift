/// Splits Swift source into tokens, skipping whitespace and comments.
///
/// It accepts any bytes: every step consumes at least one byte, interpolations nest at most
/// `maximumNesting` deep, and anything unterminated simply ends at the end of its line or of the file,
/// so it never crashes or hangs. What it produces for malformed input only has to be good enough for
/// the parser to skip past it; the compiler reports the real error.
public struct Lexer {
    /// Deeper string interpolations than this are scanned as plain string text.
    public static let maximumNesting = 64

    private let bytes: [UInt8]
    private var position = 0
    private var atLineStart = true
    /// What came last, for telling a regex literal `/…/` from the division operator.
    private var previous: (kind: TokenKind, start: Int, end: Int)?

    /// Keywords after which an expression starts, so `/` there opens a regex literal.
    private static let expressionKeywords: Set<ArraySlice<UInt8>> = Set(
        ["return", "case", "in", "where", "if", "guard", "while", "try", "await", "throw", "is", "as", "else", "repeat", "switch"]
            .map { ArraySlice($0.utf8) })

    public static func tokenize(_ file: SourceFile) -> [Token] {
        var lexer = Lexer(bytes: file.bytes)
        return lexer.run()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func run() -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count / 5)
        if bytes.starts(with: [UInt8(ascii: "#"), UInt8(ascii: "!")]) { skipLine() }
        while true {
            skipTrivia()
            guard position < bytes.count else { break }
            let start = position
            let kind = lexToken(nesting: 0)
            tokens.append(Token(kind: kind, start: start, end: position, startsLine: atLineStart))
            previous = (kind, start, position)
            atLineStart = false
        }
        return tokens
    }

    // MARK: - Trivia

    private func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private mutating func skipLine() {
        while position < bytes.count, bytes[position] != Ascii.newline { position += 1 }
    }

    private mutating func skipTrivia() {
        while position < bytes.count {
            switch bytes[position] {
            case Ascii.newline:
                atLineStart = true
                position += 1
            case Ascii.space, Ascii.tab, Ascii.carriageReturn, 0x0B, 0x0C, 0:
                position += 1
            case Ascii.slash where byte(at: position + 1) == Ascii.slash:
                skipLine()
            case Ascii.slash where byte(at: position + 1) == Ascii.star:
                skipBlockComment()
            default:
                return
            }
        }
    }

    /// Block comments nest in Swift: `/* a /* b */ c */` is one comment.
    private mutating func skipBlockComment() {
        position += 2
        var depth = 1
        while position < bytes.count, depth > 0 {
            let current = bytes[position]
            let next = byte(at: position + 1)
            if current == Ascii.slash, next == Ascii.star {
                depth += 1
                position += 2
            } else if current == Ascii.star, next == Ascii.slash {
                depth -= 1
                position += 2
            } else {
                if current == Ascii.newline { atLineStart = true }
                position += 1
            }
        }
    }

    // MARK: - Tokens

    /// Lexes one token at `position` (which is not trivia) and returns its kind. Always advances.
    private mutating func lexToken(nesting: Int) -> TokenKind {
        let first = bytes[position]
        if Ascii.isIdentifierStart(first) {
            position += 1
            while let next = byte(at: position), Ascii.isIdentifierBody(next) { position += 1 }
            return .identifier
        }
        if Ascii.isDigit(first) {
            lexNumber()
            return .number
        }
        switch first {
        case Ascii.backtick:
            position += 1
            while let next = byte(at: position), next != Ascii.newline {
                position += 1
                if next == Ascii.backtick { break }
            }
            return .identifier
        case Ascii.quote:
            lexString(hashes: 0, nesting: nesting)
            return .string
        case Ascii.hash:
            return lexPound(nesting: nesting)
        case Ascii.slash where startsBareRegex():
            lexBareRegex()
            return .regex
        case _ where Ascii.isOperator(first):
            lexOperator()
            return .operator
        case Ascii.openParen, Ascii.closeParen, Ascii.openBracket, Ascii.closeBracket, Ascii.openBrace,
             Ascii.closeBrace, Ascii.comma, Ascii.colon, Ascii.semicolon, Ascii.at, Ascii.backslash:
            position += 1
            return .punctuation
        default:
            position += 1
            return .unknown
        }
    }

    private mutating func lexNumber() {
        let isHex = bytes[position] == Ascii.zero && (byte(at: position + 1) == Ascii.lowerX)
        position += isHex ? 2 : 1
        var sawDot = false
        while let current = byte(at: position) {
            if Ascii.isIdentifierBody(current), current != Ascii.dollar, current < 0x80 {
                position += 1
            } else if current == Ascii.dot, !sawDot, let next = byte(at: position + 1),
                      Ascii.isDigit(next) || (isHex && Ascii.isHexDigit(next)) {
                sawDot = true
                position += 1
            } else if current == Ascii.plus || current == Ascii.minus,
                      let exponent = byte(at: position - 1),
                      isHex ? (exponent | 0x20) == Ascii.lowerP : (exponent | 0x20) == Ascii.lowerE,
                      let next = byte(at: position + 1), Ascii.isDigit(next) {
                position += 1
            } else {
                break
            }
        }
    }

    private mutating func lexOperator() {
        let startsWithDot = bytes[position] == Ascii.dot
        position += 1
        while let current = byte(at: position), Ascii.isOperator(current) {
            if current == Ascii.dot, !startsWithDot { break }
            if current == Ascii.slash, let next = byte(at: position + 1), next == Ascii.slash || next == Ascii.star {
                break
            }
            position += 1
        }
    }

    /// `#` starts a raw string (`#"…"#`), an extended regex (`#/…/#`), a directive or a macro-like
    /// keyword (`#if`, `#available`); alone it is punctuation.
    private mutating func lexPound(nesting: Int) -> TokenKind {
        var hashes = 0
        while byte(at: position + hashes) == Ascii.hash { hashes += 1 }
        switch byte(at: position + hashes) {
        case Ascii.quote?:
            position += hashes
            lexString(hashes: hashes, nesting: nesting)
            return .string
        case Ascii.slash?:
            position += hashes + 1
            lexExtendedRegex(hashes: hashes)
            return .regex
        case let next? where hashes == 1 && Ascii.isIdentifierStart(next):
            position += 1
            while let body = byte(at: position), Ascii.isIdentifierBody(body) { position += 1 }
            return .pound
        default:
            position += 1
            return .pound
        }
    }

    // MARK: - Strings

    /// Lexes a string literal whose opening quote is at `position`, after `hashes` `#` characters.
    private mutating func lexString(hashes: Int, nesting: Int) {
        let multiline = byte(at: position + 1) == Ascii.quote && byte(at: position + 2) == Ascii.quote
            && !closesOnSameLine(hashes: hashes, from: position + 2)
        position += multiline ? 3 : 1
        let quotesToClose = multiline ? 3 : 1
        while position < bytes.count {
            let current = bytes[position]
            if current == Ascii.backslash, followedByHashes(hashes, from: position + 1) {
                position += 1 + hashes
                guard let escaped = byte(at: position) else { return }
                if escaped == Ascii.openParen, nesting < Lexer.maximumNesting {
                    position += 1
                    lexInterpolation(nesting: nesting + 1)
                } else if escaped != Ascii.newline || multiline {
                    position += 1
                }
            } else if current == Ascii.quote, closesString(quotes: quotesToClose, hashes: hashes) {
                position += quotesToClose + hashes
                return
            } else if current == Ascii.newline, !multiline {
                return
            } else {
                position += 1
            }
        }
    }

    /// Whether a raw string whose opening looks like a multi-line delimiter (`#"""`) is really a
    /// one-line string, as Swift reads it: a quote followed by the closing `#`s before the end of the
    /// line closes it (`#"""#` is the string `"`). Without `#`s, `"""` always opens a multi-line string.
    private func closesOnSameLine(hashes: Int, from offset: Int) -> Bool {
        guard hashes > 0 else { return false }
        var index = offset
        while index < bytes.count, bytes[index] != Ascii.newline, bytes[index] != Ascii.carriageReturn {
            if bytes[index] == Ascii.quote, followedByHashes(hashes, from: index + 1) { return true }
            index += 1
        }
        return false
    }

    private func followedByHashes(_ count: Int, from offset: Int) -> Bool {
        guard offset + count <= bytes.count else { return false }
        for index in offset ..< offset + count where bytes[index] != Ascii.hash { return false }
        return true
    }

    private func closesString(quotes: Int, hashes: Int) -> Bool {
        guard position + quotes <= bytes.count else { return false }
        for index in position ..< position + quotes where bytes[index] != Ascii.quote { return false }
        return followedByHashes(hashes, from: position + quotes)
    }

    /// Lexes the expression inside `\( … )` up to and including its closing parenthesis; it may hold
    /// any tokens, nested strings and closures included.
    private mutating func lexInterpolation(nesting: Int) {
        let savedLineStart = atLineStart
        let savedPrevious = previous
        defer {
            atLineStart = savedLineStart
            previous = savedPrevious
        }
        var depth = 1
        while true {
            skipTrivia()
            guard position < bytes.count else { return }
            let start = position
            let kind = lexToken(nesting: nesting)
            previous = (kind, start, position)
            guard kind == .punctuation else { continue }
            if bytes[start] == Ascii.openParen {
                depth += 1
            } else if bytes[start] == Ascii.closeParen {
                depth -= 1
                if depth == 0 { return }
            }
        }
    }

    // MARK: - Regex literals

    /// Whether the `/` at `position` opens a bare regex literal rather than being division: it must
    /// stand where an expression starts, not be followed by a space, and close on the same line.
    private func startsBareRegex() -> Bool {
        guard let next = byte(at: position + 1),
              next != Ascii.space, next != Ascii.tab, next != Ascii.newline, next != Ascii.equals
        else { return false }
        if let previous {
            let last = bytes[previous.end - 1]
            switch previous.kind {
            case .number, .string, .regex:
                return false
            case .identifier:
                if !Self.expressionKeywords.contains(bytes[previous.start ..< previous.end]) { return false }
            case .punctuation:
                if last == Ascii.closeParen || last == Ascii.closeBracket || last == Ascii.closeBrace { return false }
            case .operator:
                if last == Ascii.question || last == Ascii.exclamation || last == Ascii.closeAngle { return false }
            case .pound, .unknown:
                break
            }
        }
        var offset = position + 1
        while let current = byte(at: offset), current != Ascii.newline {
            if current == Ascii.backslash { offset += 2; continue }
            if current == Ascii.slash { return true }
            offset += 1
        }
        return false
    }

    private mutating func lexBareRegex() {
        position += 1
        while let current = byte(at: position), current != Ascii.newline {
            position += current == Ascii.backslash ? 2 : 1
            if current == Ascii.slash { return }
        }
        position = min(position, bytes.count)
    }

    private mutating func lexExtendedRegex(hashes: Int) {
        while position < bytes.count {
            if bytes[position] == Ascii.backslash {
                position += 2
            } else if bytes[position] == Ascii.slash, followedByHashes(hashes, from: position + 1) {
                position += 1 + hashes
                return
            } else {
                position += 1
            }
        }
        position = min(position, bytes.count)
    }
}

/// The ASCII bytes the lexer and parser look at.
enum Ascii {
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let slash = UInt8(ascii: "/")
    static let backslash = UInt8(ascii: "\\")
    static let star = UInt8(ascii: "*")
    static let quote = UInt8(ascii: "\"")
    static let backtick = UInt8(ascii: "`")
    static let hash = UInt8(ascii: "#")
    static let dollar = UInt8(ascii: "$")
    static let underscore = UInt8(ascii: "_")
    static let dot = UInt8(ascii: ".")
    static let plus = UInt8(ascii: "+")
    static let minus = UInt8(ascii: "-")
    static let equals = UInt8(ascii: "=")
    static let question = UInt8(ascii: "?")
    static let exclamation = UInt8(ascii: "!")
    static let openAngle = UInt8(ascii: "<")
    static let closeAngle = UInt8(ascii: ">")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let at = UInt8(ascii: "@")
    static let zero = UInt8(ascii: "0")
    static let lowerX = UInt8(ascii: "x")
    static let lowerE = UInt8(ascii: "e")
    static let lowerP = UInt8(ascii: "p")

    /// Letters, `_`, `$` and every non-ASCII byte: Swift allows most of Unicode in names, and
    /// treating all of it as name characters keeps multi-byte sequences in one token.
    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            || byte == underscore || byte == dollar || byte >= 0x80
    }

    static func isIdentifierBody(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || isDigit(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= zero && byte <= UInt8(ascii: "9")
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
    }

    static func isOperator(_ byte: UInt8) -> Bool {
        switch byte {
        case slash, equals, minus, plus, exclamation, star, UInt8(ascii: "%"), openAngle, closeAngle,
             UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "~"), question, dot:
            return true
        default:
            return false
        }
    }
}

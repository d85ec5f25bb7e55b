/// The lexical class of a token. The parser only needs to tell declarations apart, so literals keep
/// no value (their text is in the source) and comments and whitespace are not tokens at all.
public enum TokenKind: UInt8, Sendable {
    /// A name or keyword: `struct`, `Person`, `` `class` ``, `$0`, `naïve`.
    case identifier
    /// An integer or floating-point literal in any base.
    case number
    /// A string literal of any form: single-line, multi-line, raw, with interpolations.
    case string
    /// A regex literal: `/…/` or `#/…/#`.
    case regex
    /// One of `( ) [ ] { } , : ; @ \` and the backslash of a key path.
    case punctuation
    /// A run of operator characters: `==`, `->`, `?`, `!`, `.`, `...`, `<`.
    case `operator`
    /// `#` followed by a name: `#if`, `#endif`, `#available`, `#selector`.
    case pound
    /// A byte that starts no Swift token; kept so the parser always moves forward.
    case unknown
}

/// One token: its class and where it sits in the file.
public struct Token: Sendable, Equatable {
    public var kind: TokenKind
    /// Byte offsets into the file's UTF-8: `start ..< end`.
    public var start: Int
    public var end: Int
    /// Whether a line break (outside comments' own text) comes between this token and the one before.
    public var startsLine: Bool
}

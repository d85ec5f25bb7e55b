@testable import CRUDGenerator
import Testing

/// The tokens of `source` as (kind, text) pairs.
private func lex(_ source: String) -> [(TokenKind, String)] {
    let file = SourceFile(path: "test.swift", text: source)
    return Lexer.tokenize(file).map { ($0.kind, file.text(of: $0)) }
}

private func kinds(_ source: String) -> [TokenKind] { lex(source).map(\.0) }
private func texts(_ source: String) -> [String] { lex(source).map(\.1) }

@Suite("Lexer")
struct LexerTests {
    @Test("identifiers, backticked names, unicode names, dollar names")
    func identifiers() {
        #expect(texts("struct `class` naïveCafé 日本語 $0 _x x1") == ["struct", "`class`", "naïveCafé", "日本語", "$0", "_x", "x1"])
        #expect(kinds("a `b` ç") == [.identifier, .identifier, .identifier])
    }

    @Test("line, block, nested block and doc comments are skipped")
    func comments() {
        let source = """
            a // line { " comment
            /* block } " */ b
            /* outer /* inner } */ still "comment" */ c
            /// doc `struct X: CRUDModel {`
            /** doc block { */ d
            """
        #expect(texts(source) == ["a", "b", "c", "d"])
    }

    @Test("an unterminated block comment runs to the end of the file")
    func unterminatedComment() {
        #expect(texts("a /* never /* closed */") == ["a"])
    }

    @Test("single-line strings with escapes")
    func strings() {
        #expect(lex(#""a \"quoted\" \\ { }" x"#).map(\.0) == [.string, .identifier])
        #expect(texts(#""" "#) == [#""""#])
    }

    @Test("#\"\"\"# and its longer forms are one-line strings, as Swift reads them; #\"\"\" with a new line opens a multi-line one")
    func rawQuoteStrings() {
        #expect(lex("let q = #\"\"\"#\nstruct P: CRUDModel {}").map(\.1) == ["let", "q", "=", "#\"\"\"#", "struct", "P", ":", "CRUDModel", "{", "}"])
        #expect(texts("a ##\"\"\"## b") == ["a", "##\"\"\"##", "b"])
        #expect(texts("a #\"\"# b") == ["a", "#\"\"#", "b"])
        #expect(texts("a #\"\"\"quoted\"# b") == ["a", "#\"\"\"quoted\"#", "b"])
        #expect(texts("a ##\"\"\"#\"## b") == ["a", "##\"\"\"#\"##", "b"], "a quote with too few hashes does not close it")
        #expect(texts("a #\"\"\"\nstruct In {}\n\"\"\"# b") == ["a", "#\"\"\"\nstruct In {}\n\"\"\"#", "b"])
        #expect(texts("a \"\"\"\nx\"#\n\"\"\" b") == ["a", "\"\"\"\nx\"#\n\"\"\"", "b"], "without hashes, \"\"\" always opens a multi-line string")
    }

    @Test("multi-line strings hold declarations and quotes without ending early")
    func multilineStrings() {
        let source = "let s = \"\"\"\n    struct X: CRUDModel {\n    \"quoted\" \"\" \\\"\"\"\n    \"\"\"\nafter"
        let tokens = lex(source)
        #expect(tokens.map(\.0) == [.identifier, .identifier, .operator, .string, .identifier])
        #expect(tokens.last?.1 == "after")
    }

    @Test("raw strings end only at a quote followed by as many hashes")
    func rawStrings() {
        #expect(kinds(##"#"one "# hash"#"##) == [.string, .identifier, .string])
        #expect(texts(###"##"has "# inside"## x"###) == [###"##"has "# inside"##"###, "x"])
        #expect(texts("#\"\"\"\n raw \"\"\" still\n\"\"\"# y") == ["#\"\"\"\n raw \"\"\" still\n\"\"\"#", "y"])
        // In a raw string a backslash escapes nothing unless followed by the hashes.
        #expect(texts(##"#"a\"# b"##) == [##"#"a\"#"##, "b"])
    }

    @Test("interpolations nest parentheses, closures and strings")
    func interpolation() {
        let source = #""a \(f("b)", { "\(")") }" }())) c" tail"#
        #expect(texts(source) == [#""a \(f("b)", { "\(")") }" }())) c""#, "tail"])
        #expect(texts(##"#"raw \#(x + ")") done"# z"##).count == 2)
    }

    @Test("numbers in every base, with separators, fractions and exponents")
    func numbers() {
        #expect(texts("0x1F 0b1010 0o17 1_000 1.5 1.5e-3 0x1.8p3 12e+2") == ["0x1F", "0b1010", "0o17", "1_000", "1.5", "1.5e-3", "0x1.8p3", "12e+2"])
        #expect(texts("1..<5") == ["1", "..<", "5"])
        #expect(texts("t.0.1") == ["t", ".", "0.1"])
    }

    @Test("attributes are @ followed by a name")
    func attributes() {
        #expect(texts("@available(iOS 13, *) @Published var x") == ["@", "available", "(", "iOS", "13", ",", "*", ")", "@", "Published", "var", "x"])
    }

    @Test("operators, with dots only in dot-led runs")
    func operators() {
        #expect(texts("a == b -> c ?? d") == ["a", "==", "b", "->", "c", "??", "d"])
        #expect(texts("x?.y!.z") == ["x", "?", ".", "y", "!", ".", "z"])
        #expect(texts("Array<Int?>") == ["Array", "<", "Int", "?>"])
        #expect(texts("a ... b") == ["a", "...", "b"])
        #expect(texts("a+/*c*/b") == ["a", "+", "b"])
    }

    @Test("compiler directives")
    func directives() {
        #expect(lex("#if os(Linux)\n#elseif DEBUG\n#else\n#endif").filter { $0.0 == .pound }.map(\.1) == ["#if", "#elseif", "#else", "#endif"])
    }

    @Test("regex literals, extended and bare, against division")
    func regexes() {
        #expect(kinds(#"let r = #/a"{/#"#) == [.identifier, .identifier, .operator, .regex])
        #expect(kinds(#"let r = /\{"/"#) == [.identifier, .identifier, .operator, .regex])
        #expect(kinds("a / b / c") == [.identifier, .operator, .identifier, .operator, .identifier])
        #expect(kinds(#"return /"{/"#) == [.identifier, .regex])
        #expect(kinds("total/2/count") == [.identifier, .operator, .number, .operator, .identifier])
        #expect(kinds("(x)/2/y") == [.punctuation, .identifier, .punctuation, .operator, .number, .operator, .identifier])
    }

    @Test("line starts are recorded for tokens after newlines and multi-line comments")
    func lineStarts() {
        let file = SourceFile(path: "t.swift", text: "a b\nc /* x\n */ d")
        #expect(Lexer.tokenize(file).map(\.startsLine) == [true, false, true, true])
    }

    @Test("unterminated strings stop at the end of their line")
    func unterminatedString() {
        #expect(texts("let s = \"open\nstruct X {}") == ["let", "s", "=", "\"open", "struct", "X", "{", "}"])
    }

    @Test("source locations are 1-based lines and byte columns")
    func locations() {
        let file = SourceFile(path: "t.swift", text: "ab\n  cd\n")
        #expect(file.location(of: 0) == (1, 1))
        #expect(file.location(of: 5) == (2, 3))
        #expect(file.location(of: 8) == (3, 1))
    }
}

import CRUD
import Foundation

// Nothing in a string, a comment or a regex literal declares a model:
// struct InComment: CRUDModel { let id: Int }
/* A block comment with "quotes", a brace {, and /* a nested comment with } */ still inside. */
/// Doc comment: `struct InDocComment: CRUDModel {`

let decoyMultiline = """
    struct InMultilineString: CRUDModel {
        let id: Int
    }
    "quoted" and \"escaped\" and \(1 + 1) and a lone " quote
    """

let decoyRaw = ##"struct InRawString: CRUDModel { let id: Int } with "# inside"##
let decoyRawMultiline = ##"""
    struct InRawMultiline: CRUDModel { "#" "## not closed yet """# }
    """##
let decoyInterpolation = "outer \(["a", "b"].map { "inner \($0 + "}")" }.joined(separator: "\(")")")) end"
let decoyNestedClosure = "\({ () -> String in let s = "{"; return s + "\("}")" }())"
let decoyUnicode = "naïve 😀 \u{1F600} \t\"{"
var decoyRegex: Regex<Substring> { #/struct\s+InRegex:\s*CRUDModel\s*\{"/# }
var decoyBareRegex: Regex<Substring> { /\{"[a-z]+"\}/ }
let decoyCharacters: [Character] = ["{", "}", "\"", "\\"]
let decoyNumbers = [0x1F, 0b1010, 0o17, 1_000_000, 0x1.8p3, 1.5e-3, 12.0]
let decoyDivision = 10 / 2 / 1

/// A model after all of the above: the lexer must still be in step here.
struct TortureStrings: CRUDModel, Equatable {
    let id: Int
    var text: String = "struct NotAModel: CRUDModel {}" // a default holding a decoy
    var note: String? = """
        multi-line default with "quotes" and braces {
        """
}

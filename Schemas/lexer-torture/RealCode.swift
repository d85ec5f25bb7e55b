// Constructs found in public Swift packages that once broke the generator (issue 10).
@_spi(CRUDTortureSPI) import CRUD
@_documentation(visibility: internal) @_exported import Foundation

// Swift reads `#"""#` as the one-character string `"`, not as the opening of a multi-line string.
let rawQuote = #"""#
struct BetweenRawQuotes: CRUDModel {
    let id: Int
    var name: String
}
let anotherRawQuote = #"""#
let doubleHashQuote = ##"""##
let emptyRaw = #""#
let quotesInRaw = #"""quoted""#

// Commas inside generic arguments belong to the initializer, not to the list of bindings; a `<`
// with spaces around it is a comparison.
struct GenericInitializers: CRUDModel {
    let id: Int
    let cache = Dictionary<String, Int>(), lookup = Array<Dictionary<String, [Int]>>()
    var total: Int = max(Array<Int>().count, Dictionary<String, Int>().count), name: String = ""
    let ordered = 1 < 2, rank: Int
}

// A struct declared once per #if branch and marked by an extension gets each branch's code.
#if os(Linux)
struct PerBranch {
    let id: Int
    var linuxOnly: String
}
#else
struct PerBranch {
    let id: Int
}
#endif

extension PerBranch: CRUDModel {}

// Synthesized Codable encodes in the order of the CodingKeys cases: so do the columns.
struct ReorderedKeys: CRUDModel, Codable {
    var a: Int
    var b: String
    var c: Double

    enum CodingKeys: String, CodingKey {
        case c, a, b = "bee"
    }
}

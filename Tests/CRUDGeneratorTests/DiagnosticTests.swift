import CRUDGenerator
import Testing

@Suite("Diagnostics")
struct DiagnosticTests {
    @Test("a class marked CRUDModel")
    func classModel() {
        #expect(errors("import CRUD\nfinal class Account: CRUDModel {\n    let id: Int\n}")
            == ["Model.swift:2:7: error: 'Account' is a class; CRUDModel works on structs, whose rows are plain values: declare 'Account' as a struct"])
    }

    @Test("an enum marked CRUDModel, in the declaration or by an extension")
    func enumModel() {
        #expect(errors("enum Mood: String, CRUDModel { case a }").first?.hasPrefix("Model.swift:1:1: error: 'Mood' is an enum; CRUDModel maps a struct") == true)
        #expect(errors("enum Mood { case a }\nextension Mood: CRUDModel {}").first?.hasPrefix("Model.swift:1:1: error: 'Mood' is an enum") == true)
    }

    @Test("a model declared inside a function, a closure or top-level code is an error at its declaration, saying where to move it")
    func localModel() {
        let source = """
            import CRUD
            func testJoin() throws {
                struct Parent: CRUDModel, Codable {
                    let id: Int
                }
                let make = {
                    final class Helper {}
                    struct Child: CRUD.CRUDModel { let id: Int }
                }
            }
            do {
                struct Loose: Codable, Equatable, CRUDModel { let id: Int }
            }
            func notAModel() { struct Plain: Codable { let id: Int } }
            struct Fine: CRUDModel { let id: Int }
            """
        let found = errors(source)
        #expect(found == [
            "Model.swift:3:5: error: model 'Parent' is declared inside a function, closure or top-level code, where the generated code cannot extend it; declare it at file scope or inside a type",
            "Model.swift:8:9: error: model 'Child' is declared inside a function, closure or top-level code, where the generated code cannot extend it; declare it at file scope or inside a type",
            "Model.swift:12:5: error: model 'Loose' is declared inside a function, closure or top-level code, where the generated code cannot extend it; declare it at file scope or inside a type",
        ], "\(found)")
    }

    @Test("CRUDTimestamped: a model without createdAt or updatedAt, one of another type, or a let, each at its line")
    func timestamps() {
        let source = """
            import Foundation
            struct Plain: CRUDModel, CRUDTimestamped { let id: Int }
            struct Typed: CRUDTimestamped {
                let id: Int
                var createdAt: String
                let updatedAt: Date?
            }
            struct Later { let id: Int }
            extension Later: CRUDTimestamped {}
            struct Fine: CRUDTimestamped { let id: Int; var updatedAt: Foundation.Date }
            """
        let found = errors(source)
        #expect(found == [
            "Model.swift:2:1: error: 'Plain' is CRUDTimestamped but has no column 'createdAt' or 'updatedAt' for CRUD to fill: "
                + "add 'var createdAt: Date?' and 'var updatedAt: Date?' (or one of them), or remove CRUDTimestamped",
            "Model.swift:5:20: error: 'createdAt' of CRUDTimestamped model 'Typed' is 'String'; CRUD writes the time of each insert and update there: "
                + "declare it 'Date' or 'Date?'",
            "Model.swift:6:9: error: 'updatedAt' of CRUDTimestamped model 'Typed' is a 'let'; CRUD sets it on each write: declare it 'var'",
            "Model.swift:9:1: error: 'Later' is CRUDTimestamped but has no column 'createdAt' or 'updatedAt' for CRUD to fill: "
                + "add 'var createdAt: Date?' and 'var updatedAt: Date?' (or one of them), or remove CRUDTimestamped",
        ], "\(found)")
        let local = errors("func f() { struct Local: CRUDTimestamped { var updatedAt: Date } }")
        #expect(local.first?.hasPrefix("Model.swift:1:12: error: model 'Local' is declared inside a function") == true, "\(local)")
    }

    @Test("an unsupported property type points at the type")
    func unsupportedType() {
        let found = errors("struct Shop: CRUDModel {\n    let id: Int\n    var tags: Set<String>\n}")
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("Model.swift:3:15: error: CRUD cannot store 'Set<String>'; supported column types are Int and UInt of any width"))
        #expect(found[0].contains("CRUDValue"))
    }

    @Test("JSON columns: a Codable type marked CRUDJSONValue and CRUDJSON<T> are accepted; unmarked ones are errors that say how to mark them")
    func jsonColumns() {
        let marked = """
            struct Address: Codable, CRUDJSONValue { var city: String }
            struct Point: Codable { var x: Double }
            extension Point: CRUDJSONValue {}
            struct Customer: CRUDModel {
                let id: Int
                var address: Address
                var home: Point?
                var tags: CRUDJSON<[String]>
                var scores: CRUD.CRUDJSON<[String: Int]>?
            }
            """
        #expect(errors(marked) == [])
        let unmarked = """
            struct Address: Codable { var city: String }
            struct Customer: CRUDModel {
                let id: Int
                var address: Address
                var tags: [String]
                var scores: [String: Int]
                var labels: [String]?
            }
            """
        let found = errors(unmarked)
        #expect(found.count == 4)
        #expect(found[0].hasPrefix("Model.swift:4:18: error: CRUD cannot store 'Address'"))
        #expect(found[0].hasSuffix("; to store it as JSON, mark it: 'extension Address: CRUDJSONValue {}'"))
        #expect(found[1].hasPrefix("Model.swift:5:15: error: CRUD cannot store '[String]'"))
        #expect(found[1].hasSuffix("; to store it as JSON, write 'CRUDJSON<[String]>'"))
        #expect(found[2].hasSuffix("; to store it as JSON, write 'CRUDJSON<[String: Int]>'"))
        #expect(found[3].hasSuffix("; to store the array as JSON, write 'CRUDJSON<[String]>?'"))
    }

    @Test("a relation to a type that is not a model")
    func relationToNonModel() {
        let found = errors("struct Tag { let name: String }\nstruct Post: CRUDModel {\n    let id: Int\n    let tags: [Tag]?\n}")
        #expect(found == ["Model.swift:4:15: error: '[Tag]?' looks like a relation, but 'Tag' is not a CRUDModel: mark 'Tag' CRUDModel (a struct with its own table) so joins can fill this property"])
    }

    @Test("a non-optional relation array")
    func nonOptionalRelation() {
        let found = errors("struct Tag: CRUDModel { let id: Int }\nstruct Post: CRUDModel {\n    let id: Int\n    let tags: [Tag]\n}")
        #expect(found == ["Model.swift:4:15: error: relation '[Tag]' must be optional: write '[Tag]?', which is nil until a join fills it"])
    }

    @Test("two properties mapping to the same column")
    func duplicateColumn() {
        let source = """
            struct Pair: CRUDModel {
                enum CodingKeys: String, CodingKey { case id, first = "value", second = "value" }
                let id: Int
                let first: Int
                let second: Int
            }
            """
        #expect(errors(source) == ["Model.swift:5:9: error: properties 'first' and 'second' of 'Pair' both map to column 'value': give one of them another name in CodingKeys"])
    }

    @Test("a CodingKeys case naming no property")
    func strayCodingKey() {
        let source = """
            struct Note: CRUDModel {
                enum CodingKeys: String, CodingKey {
                    case id
                    case title, body
                }
                let id: Int
                let title: String
            }
            """
        #expect(errors(source) == ["Model.swift:4:21: error: CodingKeys case 'body' names no stored property of 'Note': remove the case or rename it to match a property"])
    }

    @Test("a property left out of CodingKeys needs a default value")
    func omittedWithoutDefault() {
        let source = """
            struct Note: CRUDModel {
                enum CodingKeys: CodingKey { case id }
                let id: Int
                let required: String
                var optional: String?
                var defaulted = 3
            }
            """
        #expect(errors(source) == ["Model.swift:4:9: error: property 'required' is not in CodingKeys and has no default value, so rows cannot initialize it: add a case 'required' to CodingKeys or give the property a default value"])
    }

    @Test("a tableName that is not a string literal")
    func tableNameNotLiteral() {
        let source = """
            struct Item: CRUDModel, TableNameProvider {
                static let prefix = "app_"
                static let tableName = prefix + "items"
                let id: Int
            }
            """
        #expect(errors(source) == [#"Model.swift:3:16: error: tableName of 'Item' must be a plain string literal, as in 'static let tableName = "people"', so the generator can read the table name without running code"#])
        #expect(errors("struct Item: CRUDModel, TableNameProvider {\n    static let tableName = \"t_\\(1)\"\n    let id: Int\n}").count == 1)
        #expect(errors("struct Item: CRUDModel, TableNameProvider {\n    static var tableName: String { \"items\" }\n    let id: Int\n}").count == 1)
    }

    @Test("a model with no columns")
    func noColumns() {
        #expect(errors("struct Empty: CRUDModel {\n    var computed: Int { 1 }\n    static let shared = 1\n}")
            == ["Model.swift:1:1: error: model 'Empty' has no columns; a table needs at least one stored property of a supported type (Int and UInt of any width, Double, Float, Bool, String, [UInt8], [Int8], Data, Date, UUID, URL, their optionals, a type conforming to CRUDValue (an enum with one of these raw types works), or JSON: a Codable type marked CRUDJSONValue, or CRUDJSON<T> around any Codable T)"])
    }

    @Test("generic models, private models and hidden setters")
    func visibility() {
        #expect(errors("public struct Box<T>: CRUDModel { let id: Int }")
            == ["Model.swift:1:15: error: 'Box' is generic; a model needs one fixed table layout: make a non-generic struct for each table"],
            "the error points at the type's name")
        #expect(errors("struct Outer<T> {\n    struct Inner: CRUDModel { let id: Int }\n}") == [
            "Model.swift:2:12: error: 'Outer.Inner' is nested in generic type 'Outer', so it is generic too; "
                + "a model needs one fixed table layout: declare it outside 'Outer'",
        ])
        #expect(errors("struct Outer<T> {}\nextension Outer {\n    struct Inner: CRUDModel { let id: Int }\n}").first?
            .hasPrefix("Model.swift:3:12: error: 'Outer.Inner' is nested in generic type 'Outer'") == true)
        #expect(errors("struct Outer<T> { struct Inner {} }\nextension Outer.Inner: CRUDModel {}").first?
            .contains("'Outer.Inner' is nested in generic type 'Outer'") == true)
        #expect(errors("private struct Secret: CRUDModel { let id: Int }").first?.contains("is private to its file") == true)
        #expect(errors("struct Outer { private struct Secret: CRUDModel { let id: Int } }").first?.contains("is private to its file") == true)
        #expect(errors("struct S: CRUDModel {\n    let id: Int\n    private var hidden: Int\n}") == ["Model.swift:3:17: error: property 'hidden' is private, so the generated row reader in another file cannot set it: make it internal (or wider)"])
        #expect(errors("struct S: CRUDModel {\n    let id: Int\n    private(set) var hidden: Int\n}").first?.contains("is private(set)") == true)
    }

    @Test("property wrappers, tuples, double optionals, nested models, stored properties under #if")
    func unsupportedShapes() {
        #expect(errors("struct S: CRUDModel {\n    @Clamped var level: Int\n}").first?.contains("custom attribute @Clamped") == true)
        #expect(errors("struct S: CRUDModel {\n    let (a, b): (Int, Int)\n}").first?.contains("binds a tuple") == true)
        #expect(errors("struct S: CRUDModel {\n    let x: Int??\n}").first?.contains("double optional") == true)
        #expect(errors("struct A: CRUDModel { let id: Int }\nstruct S: CRUDModel {\n    let a: A\n}").first?.contains("'A' is a model; one model is not stored inside another's row") == true)
        #expect(errors("struct S: CRUDModel {\n    let id: Int\n    #if DEBUG\n    var debug: Int\n    #endif\n}") == ["Model.swift:4:9: error: stored property 'debug' of model 'S' is inside #if; the table layout must not depend on build settings: declare the whole model once per #if branch instead"])
        #expect(errors("struct S: CRUDModel {\n    let id: Int\n    var big: UInt128\n}").first?.contains("at most 64-bit integers") == true)
        #expect(errors("struct S: CRUDModel {\n    var id = makeID()\n}").first?.contains("cannot infer the type of 'id'") == true)
    }

    @Test("an extension adding CRUDModel to a type the target does not declare")
    func foreignExtension() {
        #expect(errors("import Foundation\nextension URLComponents: CRUDModel {}").first?.hasPrefix("Model.swift:2:1: error: extension of 'URLComponents' adds CRUDModel, but this target declares no struct") == true)
    }

    @Test("tableName without TableNameProvider is a warning, and the type name is used")
    func tableNameWithoutProvider() throws {
        let output = generate("struct Item: CRUDModel {\n    static let tableName = \"items\"\n    let id: Int\n}")
        #expect(output.diagnostics.map(\.severity) == [.warning])
        #expect(output.diagnostics.first?.description.hasPrefix("Model.swift:2:16: warning: 'Item' declares tableName but does not conform to TableNameProvider") == true)
        let source = try #require(output.source)
        #expect(source.contains(#"name: "Item","#))
    }

    @Test("declarations that are not models are never diagnosed")
    func nonModelsAreSkipped() {
        let output = generate("""
            class Service { private var x: Set<Int> = [] }
            enum Mode { case a }
            struct Box<T> { var items: [T]? }
            struct Plain { let tags: [String]?; private(set) var y: Int }
            """)
        #expect(output.diagnostics.isEmpty)
        #expect(output.source != nil)
        #expect(output.modelNames.isEmpty)
    }

    @Test("diagnostics name the file and line of the declaration across several files")
    func multipleFiles() {
        let output = generate([
            ("Sources/App/Ok.swift", "struct Ok: CRUDModel { let id: Int }"),
            ("Sources/App/Bad.swift", "import CRUD\n\nstruct Bad: CRUDModel {\n    let id: Int\n    let when: Calendar\n}"),
        ])
        #expect(output.source == nil)
        #expect(output.diagnostics.map(\.description).first?.hasPrefix("Sources/App/Bad.swift:5:15: error: CRUD cannot store 'Calendar'") == true)
    }
}

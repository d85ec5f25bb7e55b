@testable import CRUDGenerator
import Testing

private func parse(_ source: String) -> ParsedFile {
    DeclarationParser.parse(SourceFile(path: "test.swift", text: source))
}

private func allTypes(_ declarations: [TypeDeclaration]) -> [TypeDeclaration] {
    declarations.flatMap { [$0] + allTypes($0.nestedTypes) }
}

@Suite("Declaration parser")
struct ParserTests {
    @Test("types, nested types, extensions and their qualified names")
    func nesting() {
        let parsed = parse("""
            struct Outer { struct Inner { enum Kind {} } }
            extension Outer.Inner { struct Added {} }
            enum Space { class Deep {} }
            """)
        #expect(allTypes(parsed.types).map(\.qualifiedName) == ["Outer", "Outer.Inner", "Outer.Inner.Kind", "Outer.Inner", "Outer.Inner.Added", "Space", "Space.Deep"])
        #expect(allTypes(parsed.types).map(\.kind) == [.struct, .struct, .enum, .extension, .struct, .enum, .class])
    }

    @Test("generic parameters, inheritance and where clauses")
    func generics() {
        let parsed = parse("""
            struct Box<T: Equatable, U>: Codable, CRUD.CRUDModel where T: Hashable, U == [Int] { var x: Int }
            extension Box: Sendable where T: Sendable {}
            struct Plain: A & B, C<D<E>> {}
            """)
        #expect(parsed.types[0].isGeneric)
        #expect(parsed.types[0].inheritance == ["Codable", "CRUD.CRUDModel"])
        #expect(parsed.types[0].properties.map(\.name) == ["x"])
        #expect(parsed.types[1].inheritance == ["Sendable"])
        #expect(parsed.types[2].inheritance == ["A", "B", "C<D<E>>"])
        #expect(!parsed.types[2].isGeneric)
    }

    @Test("stored, computed, observed, lazy and static properties")
    func propertyKinds() throws {
        let parsed = parse("""
            struct S {
                let a: Int
                var b: String = "x" { didSet { print(b) } }
                var c: Int { a * 2 }
                var d: Int { get { 1 } set {} }
                lazy var e = [1]
                static let f = 1
                class var g: Int { 1 }
                var h = { () -> Int in 1 }()
                var i: [String: Array<Int?>]? = nil
                private(set) var j: Int
                @available(macOS 10.15, *) var k: Int
                var l, m: Double
                let (n, o): (Int, Int)
                func ignored() { var notAMember: Int = 0 }
                var p: Int {
                    willSet {}
                }
            }
            """)
        let properties = parsed.types[0].properties
        #expect(properties.map(\.name) == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "(n,o)", "p"])
        #expect(properties.map(\.isComputed) == [false, false, true, true, false, false, true, false, false, false, false, false, false, false, false])
        #expect(properties.map(\.isStatic) == [false, false, false, false, false, true, true, false, false, false, false, false, false, false, false])
        #expect(properties[4].isLazy)
        #expect(properties[1].literal == .string("x"))
        #expect(properties[8].type == "[String:Array<Int?>]?")
        #expect(properties[9].modifiers == ["private(set)"])
        #expect(properties[10].attributes == ["available"])
        #expect(properties[11].type == "Double")
        #expect(properties[12].type == "Double")
        #expect(properties[13].isTuplePattern)
    }

    @Test("enum cases with raw values, several per line, and associated values")
    func enumCases() {
        let parsed = parse("""
            enum CodingKeys: String, CodingKey {
                case id, name = "full_name", `default`
                case quoted = #"has "quotes""#
                case payload(Int)
            }
            """)
        let cases = parsed.types[0].enumCases
        #expect(cases.map(\.name) == ["id", "name", "default", "quoted", "payload"])
        #expect(cases.map(\.rawValue) == [nil, "full_name", nil, #"has "quotes""#, nil])
        #expect(cases[4].hasAssociatedValues)
    }

    @Test("#if branches give declarations composed conditions; members inside #if are marked")
    func conditions() {
        let parsed = parse("""
            #if os(Linux)
            struct A { var x: Int }
            #elseif canImport(Darwin)
            struct A {
                #if DEBUG
                var y: Int
                #endif
            }
            #else
            struct A {}
            #endif
            struct B {}
            """)
        #expect(parsed.types.map(\.condition) == ["(os(Linux))", "!(os(Linux)) && (canImport(Darwin))", "!(os(Linux)) && !(canImport(Darwin))", nil])
        #expect(parsed.types[1].properties.first?.isConditional == true)
        #expect(parsed.types[0].properties.first?.isConditional == false)
    }

    @Test("declarations in strings, comments, function bodies and closures are not declarations")
    func decoys() {
        let parsed = parse(#"""
            let s = """
                struct InString: CRUDModel {}
                """
            // struct InComment: CRUDModel {}
            func f() { struct Local: CRUDModel {} }
            let c = { struct InClosure {} }
            if true { struct InIf {} }
            struct Real {}
            """#)
        #expect(parsed.types.map(\.name) == ["Real"])
    }

    @Test("imports are kept with their attributes, modifiers and conditions")
    func imports() {
        let parsed = parse("""
            import Foundation
            @preconcurrency import Dispatch
            internal import struct Foo.Bar
            #if canImport(Glibc)
            import Glibc
            #endif
            """)
        #expect(parsed.imports.map(\.text) == ["import Foundation", "@preconcurrency import Dispatch", "internal import struct Foo.Bar", "import Glibc"])
        #expect(parsed.imports.map(\.condition) == [nil, nil, nil, "(canImport(Glibc))"])
    }

    @Test("function requirements without bodies do not swallow the next member")
    func protocolRequirements() {
        let parsed = parse("""
            struct S {
                func a() -> Int
                var b: Int
                init(x: Int) where T: P
                subscript(i: Int) -> Int { get }
                var c: Int
            }
            """)
        #expect(parsed.types[0].properties.map(\.name) == ["b", "c"])
    }

    @Test("commas inside generic arguments of an initializer do not split the bindings; a spaced < is a comparison")
    func genericArgumentsInInitializers() throws {
        let parsed = parse("""
            struct S {
                let cache = Dictionary<String, Int>()
                var pair = Pair<Int, Int>(), name: String
                var nested: Int = f(Array<Dictionary<String, [Int]>>().count, Set<Int>.init().count), after: Bool
                let x = a < b, y: Int
                let z = a<b, w: Int
                var tuple: (Int, Int) = (Array<Int>().count, 1), last: Double
            }
            """)
        let properties = try #require(parsed.types.first).properties
        #expect(properties.map(\.name) == ["cache", "pair", "name", "nested", "after", "x", "y", "z", "w", "tuple", "last"])
        #expect(properties.map(\.type) == [nil, nil, "String", "Int", "Bool", nil, "Int", nil, "Int", "(Int,Int)", "Double"])
    }

    @Test("imports keep their attributes whole, but never @_exported")
    func importAttributes() {
        let output = generate("""
            @_spi(Internals) import CRUD
            @_documentation(visibility: internal) @_exported import AsyncKit
            @preconcurrency import Dispatch
            struct Model: CRUDModel { let id: Int }
            """)
        let source = output.source ?? ""
        #expect(source.contains("\n@_spi(Internals) import CRUD\n"))
        #expect(source.contains("\n@_documentation(visibility: internal) import AsyncKit\n"))
        #expect(source.contains("\n@preconcurrency import Dispatch\n"))
        #expect(!source.contains("@_exported"), "the generated file never re-exports a module")
    }

    @Test("a target with no models gets a file that declares and imports nothing")
    func noModels() {
        let output = generate("@_exported import Foundation\nstruct Plain { let id: Int }\n")
        let code = (output.source ?? "x").split(separator: "\n").filter { !$0.hasPrefix("//") }
        #expect(output.source != nil)
        #expect(code.isEmpty, "\(code)")
    }
}

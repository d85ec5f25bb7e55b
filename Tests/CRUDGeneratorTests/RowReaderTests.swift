import CRUDGenerator
import Testing

/// Which way the generated `init(crudRow:)` builds a model: through Swift's memberwise initializer
/// (in place, the fast way) or property by property (a copy of the model per row).
@Suite("Row readers")
struct RowReaderTests {
    /// The lines of the generated `init(crudRow:)` body.
    static func readerBody(_ source: String) throws -> [String] {
        let output = generate(source)
        #expect(output.diagnostics.filter { $0.severity == .error }.isEmpty, "\(output.diagnostics)")
        let lines = try #require(output.source).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.contains("init<Row: CRUDRowReader>(crudRow row: Row) throws {") })
        let end = try #require(lines[start...].firstIndex { $0 == "    }" })
        return lines[(start + 1) ..< end].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("the memberwise initializer takes the columns in declaration order, the relations too, and leaves defaults out")
    func memberwise() throws {
        let source = """
            import CRUD
            struct Owner: CRUDModel {
                enum CodingKeys: String, CodingKey { case name, id, pets, note = "remark" }
                let kind = "owner"
                private let secret = 1
                let id: Int
                var note: String?
                static var count = 0
                var name: String
                var shout: String { name.uppercased() }
                var cached: Int?
                var version = 3
                var pets: [Pet]?
            }
            struct Pet: CRUDModel { let id: Int }
            """
        let body = try Self.readerBody(source)
        // Positions follow CodingKeys; each is written once, in Columns, and the reader names the columns.
        let columns = try #require(generate(source).source).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(columns.contains("static var name: CRUDColumn<Owner, String> { CRUDColumn(0, \"name\") }"))
        #expect(columns.contains("static var id: CRUDColumn<Owner, Int> { CRUDColumn(1, \"id\") }"))
        #expect(columns.contains("static var note: CRUDColumn<Owner, String?> { CRUDColumn(2, \"remark\") }"))
        #expect(body == ["self.init(", "id: try row.read(Columns.id),", "note: try row.read(Columns.note),", "name: try row.read(Columns.name),",
                         "pets: try row.relation(0)", ")"])
    }

    @Test("a struct without a memberwise initializer the generated file can call is read property by property", arguments: [
        "init(id: Int, name: String) { self.id = id; self.name = name }",
        "init?(text: String) { return nil }",
        "#if DEBUG\n    init() { id = 0; name = \"\" }\n    #endif",
        "private var touched = false",
        "fileprivate var touched: Bool?",
        "lazy var shout = name.uppercased()",
        "@Clamped var level = 0",
        "#addInitializers",
    ])
    func propertyByProperty(member: String) throws {
        let body = try Self.readerBody("""
            import CRUD
            struct Owner: CRUDModel {
                enum CodingKeys: String, CodingKey { case id, name }
                let id: Int
                var name: String
                \(member)
            }
            """)
        #expect(body == ["self.id = try row.read(Columns.id)", "self.name = try row.read(Columns.name)"])
    }

    @Test("an attached macro may add an initializer, so the model is read property by property; a plain attribute changes nothing")
    func attributes() throws {
        let macro = try Self.readerBody("import CRUD\n@Initialized struct Owner: CRUDModel { let id: Int }")
        #expect(macro == ["self.id = try row.read(Columns.id)"])
        let available = try Self.readerBody("import CRUD\n@available(macOS 14, *) struct Owner: CRUDModel { let id: Int }")
        #expect(available == ["self.init(", "id: try row.read(Columns.id)", ")"])
    }
}

import CRUD
import Foundation
import Testing

/// The Writes article's example, in a namespace of its own so that its `Bicycle` is the article's.
enum WritesArticle {
    /// The article's bicycle, its checks declared as the article writes them.
    struct Bicycle: CRUDModel, TableNameProvider {
        static let tableName = "article_bicycle"
        let id: Int
        var name: String
        var wheels: Int

        static let crudConstraints: [CRUDConstraint<Bicycle>] = [
            .check(\Bicycle.wheels >= 1 && \Bicycle.wheels <= 3, name: "bicycle_wheels"),
            .check("name <> ''", name: "bicycle_name"),
        ]
    }
}

/// The same check with its column in double quotes: a name on SQLite and PostgreSQL, the string
/// 'wheels' on MySQL.
struct QuotedBicycle: CRUDModel {
    let id: Int
    var wheels: Int

    static let crudConstraints: [CRUDConstraint<QuotedBicycle>] = [
        .check("\"wheels\" BETWEEN 1 AND 3", name: "quoted_bicycle_wheels"),
    ]
}

/// A typed check whose text holds a quote and a backslash, which each backend writes its own way.
struct Motto: CRUDModel {
    let id: Int
    var text: String

    static let crudConstraints: [CRUDConstraint<Motto>] = [
        .check(\Motto.text != "a\\b'c" && \Motto.text != "", name: "motto_text"),
    ]
}

/// A row of the migration article's hand-written step.
struct TodoPriority: CRUDModel {
    var priority: String
}

/// The check-constraint and raw-SQL examples of the DocC articles, run as written on every backend:
/// each line of them is read from its article and must stand in this file, where it runs.
@Suite("documentation examples")
struct DocumentationExampleTests {
    static let articles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Sources/CRUD/Documentation.docc")

    /// The lines of `article`'s Swift code blocks that are part of a statement with `marker`, from
    /// the line that has it to the one that closes its parentheses, trimmed, comments left out.
    static func example(_ article: String, _ marker: String) throws -> [String] {
        let text = try String(contentsOf: articles.appending(path: article), encoding: .utf8)
        var inCode = false, taking = false, depth = 0
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inCode = line.hasPrefix("```swift")
                continue
            }
            guard inCode else { continue }
            if !taking, line.contains(marker) { taking = true }
            guard taking else { continue }
            let code = line.components(separatedBy: " //")[0].trimmingCharacters(in: .whitespaces)
            lines.append(code)
            depth += code.filter { $0 == "(" }.count - code.filter { $0 == ")" }.count
            if depth <= 0 { taking = false }
        }
        return lines
    }

    /// Expects every line of the example to stand in this file.
    static func expectHere(_ lines: [String], _ article: String) throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        #expect(!lines.isEmpty, "\(article) has the example")
        for line in lines {
            #expect(source.contains(line), "\(article)'s line runs here as written: \(line)")
        }
    }

    @Test("the check constraints of the Writes article, typed and in text: created, and enforced as checks", arguments: Backend.all)
    func checkConstraint(_ backend: Backend) throws {
        let lines = try Self.example("WritesAndKeys.md", ".check(")
        #expect(lines.count == 2, "\(lines)")
        try Self.expectHere(lines, "WritesAndKeys.md")
        try checkConstraint(backend.open())
    }

    func checkConstraint<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        typealias Bicycle = WritesArticle.Bicycle
        let db = Database(configuration: configuration)
        try db.create(Bicycle.self)
        try db.table(Bicycle.self).insert(Bicycle(id: 1, name: "Trike", wheels: 3))
        for (bicycle, check) in [(Bicycle(id: 2, name: "Quad", wheels: 4), "bicycle_wheels"), (Bicycle(id: 3, name: "Uni", wheels: 0), "bicycle_wheels"),
                                 (Bicycle(id: 4, name: "", wheels: 2), "bicycle_name")] {
            let refused = #expect(throws: CRUDSQLExeError.self) { try db.table(Bicycle.self).insert(bicycle) }
            #expect(refused?.kind == .checkViolation, "\(bicycle.name)")
            #expect(refused?.constraint == nil || refused?.constraint == check, "\(String(describing: refused))")
        }
        #expect(try db.table(Bicycle.self).select().map(\.name) == ["Trike"])
    }

    @Test("a typed check's text with a quote and a backslash means the same on every backend", arguments: Backend.all)
    func typedCheckText(_ backend: Backend) throws { try typedCheckText(backend.open()) }

    func typedCheckText<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Motto.self)
        try db.table(Motto.self).insert([Motto(id: 1, text: "a\\\\b'c"), Motto(id: 2, text: "ab'c"), Motto(id: 3, text: "a\\b")])
        for refused in ["a\\b'c", ""] {
            let error = #expect(throws: CRUDSQLExeError.self) { try db.table(Motto.self).insert(Motto(id: 9, text: refused)) }
            #expect(error?.kind == .checkViolation, "\(refused)")
        }
        #expect(try db.table(Motto.self).count() == 3)
    }

    /// Before, MySQL created the check, and every insert then failed with error 1292 (the string
    /// 'wheels' compared as a number).
    @Test("a check naming its column in double quotes: enforced where those quote names, refused at create on MySQL",
          arguments: Backend.all)
    func doubleQuotedColumnInCheck(_ backend: Backend) throws { try doubleQuotedColumnInCheck(backend.open(), backend) }

    func doubleQuotedColumnInCheck<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        guard backend == .mysql else {
            try db.create(QuotedBicycle.self)
            try db.table(QuotedBicycle.self).insert(QuotedBicycle(id: 1, wheels: 2))
            let refused = #expect(throws: CRUDSQLExeError.self) { try db.table(QuotedBicycle.self).insert(QuotedBicycle(id: 2, wheels: 4)) }
            #expect(refused?.kind == .checkViolation)
            return
        }
        let refused = #expect(throws: CRUDSQLGenError.self) { try db.create(QuotedBicycle.self) }
        #expect(refused?.msg.contains("`wheels`") == true, "says how to quote on MySQL: \(String(describing: refused))")
        #expect(refused?.msg.contains("string") == true)
        // Nothing was created.
        #expect(throws: CRUDSQLExeError.self) { try db.table(QuotedBicycle.self).count() }
    }

    @Test("the raw SQL of the query chain and migration articles, on every backend", arguments: Backend.all)
    func rawSQL(_ backend: Backend) throws {
        try Self.expectHere(try Self.example("QueryChain.md", "db.sql("), "QueryChain.md")
        try Self.expectHere(try Self.example("SchemaMigrations.md", "try db.sql("), "SchemaMigrations.md")
        try rawSQL(backend.open())
    }

    func rawSQL<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Person.self)
        try db.table(Person.self).insert([Person(id: UUID(), firstName: "Owen", lastName: "Lars", height: nil, phoneNumbers: nil),
                                          Person(id: UUID(), firstName: "Luke", lastName: "Skywalker", height: nil, phoneNumbers: nil)])
        let rows = try db.sql("SELECT * FROM \(db.quote(Person.self)) WHERE \(db.quote("lastName")) = \(db.placeholder(0))",
                     bindings: ["Lars"], Person.self)
        #expect(rows.map(\.firstName) == ["Owen"])

        try db.sql("CREATE TABLE \(db.quote("Todo")) (\(db.quote("priority")) VARCHAR(20) NOT NULL)")
        try db.sql("INSERT INTO \(db.quote("Todo")) (\(db.quote("priority"))) VALUES ('high'), ('low')")
        try db.sql("UPDATE \(db.quote("Todo")) SET \(db.quote("priority")) = '9' WHERE \(db.quote("priority")) = 'high'")
        let priorities = try db.sql("SELECT \(db.quote("priority")) FROM \(db.quote("Todo"))", TodoPriority.self).map(\.priority)
        #expect(priorities.sorted() == ["9", "low"])
    }
}

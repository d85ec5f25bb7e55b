import CRUDGenerator
import Foundation
import Testing

/// `crud-migrations generate` over the three releases of `Tests/Fixtures/TodoHistory`, whose steps
/// are committed in `Tests/CRUDIntegrationTests/SchemaHistory`, where the integration tests apply
/// them to every backend; and the build's warning when the models moved past the last step.
@Suite("Migration generation")
struct MigrationGenerationTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let steps = tests.appending(path: "CRUDIntegrationTests/SchemaHistory")
    static let names = ["initial", "titles and due dates", "priorities as numbers"]

    /// The models of `release` (1 to 3), and the committed steps before it.
    static func inputs(release: Int, steps count: Int? = nil) throws -> [GeneratorInput] {
        let models = tests.appending(path: "Fixtures/TodoHistory/v\(release)/Models.swift")
        let stepFiles = (1 ..< (count ?? release - 1) + 1).map { steps.appending(path: "Migration000\($0).swift") }
        return try ([models] + stepFiles).map { url in
            GeneratorInput(file: SourceFile(path: url.lastPathComponent, bytes: Array(try Data(contentsOf: url))), name: url.lastPathComponent)
        }
    }

    static func committed(_ file: String) throws -> String {
        try String(contentsOf: steps.appending(path: file), encoding: .utf8)
    }

    @Test("each release's models, after the steps before it, give exactly the committed step", arguments: 1 ... 3)
    func generatesCommittedStep(_ release: Int) throws {
        let output = Generator.generateMigration(try Self.inputs(release: release), name: Self.names[release - 1], namespace: "TodoHistory")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        #expect(output.stepName == "000\(release) \(Self.names[release - 1])")
        #expect(output.files["Migration000\(release).swift"] == (try Self.committed("Migration000\(release).swift")))
        #expect(Set(output.files.keys) == ["Migration000\(release).swift", "TodoHistory.swift"])
        if release == 3 { #expect(output.files["TodoHistory.swift"] == (try Self.committed("TodoHistory.swift"))) }
    }

    @Test("generating again with no model change writes nothing, and the diagram stays the same")
    func nothingToGenerate() throws {
        let output = Generator.generateMigration(try Self.inputs(release: 3, steps: 3), name: "again", namespace: "TodoHistory")
        #expect(output.stepName == nil)
        #expect(output.files.isEmpty)
        #expect(output.diagnostics.isEmpty)
        #expect(output.diagram == Generator.generateMigration(try Self.inputs(release: 3), name: "x", namespace: "TodoHistory").diagram)
        #expect(output.diagram.contains("HistoryUser ||--o{ HistoryTodo : \"userId\""))
        #expect(output.diagram.contains("int64 priority \"nullable\""))
    }

    @Test("the build warns at each changed model's line while the last step lacks the change, and not before any step exists")
    func missingMigrationWarnings() throws {
        let behind = Generator.generate(try Self.inputs(release: 3, steps: 2))
        #expect(behind.source != nil)
        let warnings = behind.diagnostics.map(\.description)
        let advice = "with no migration; run `swift package --allow-writing-to-package-directory crud-migrations generate <name>` "
            + "(the last step is \"0002 titles and due dates\")"
        #expect(warnings == [
            "Models.swift:17:9: warning: 'HistoryTodo.priority' changed from text? to int64? \(advice)",
            "Models.swift:12:1: warning: 'HistoryTodo' lost the column 'notes' \(advice)",
            "Models.swift:12:1: warning: 'HistoryTodo' gained the constraint 'HistoryTodo_userId_fkey' \(advice)",
        ])
        #expect(Generator.generate(try Self.inputs(release: 3, steps: 3)).diagnostics.isEmpty, "after generating: no warning")
        #expect(Generator.generate(try Self.inputs(release: 3, steps: 0)).diagnostics.isEmpty, "no step yet: not nagged")
        let added = Generator.generate(try Self.inputs(release: 2, steps: 1)).diagnostics.map(\.description)
        #expect(added.first == "Models.swift:15:9: warning: 'HistoryTodo.name' was renamed to 'title' "
            + "with no migration; run `swift package --allow-writing-to-package-directory crud-migrations generate <name>` (the last step is \"0001 initial\")")
        #expect(added.contains { $0.hasPrefix("Models.swift:19:9: warning: 'HistoryTodo' gained the column 'dueAt'") })
    }

    @Test("a column renamed without the hint is dropped and added, with a loud comment saying how to keep its values")
    func unhintedRename() throws {
        var inputs = try Self.inputs(release: 2)
        let text = String(decoding: inputs[0].file.bytes, as: UTF8.self).replacingOccurrences(of: " // crud-migrations: renamed from \"name\"", with: "")
        inputs[0] = GeneratorInput(file: SourceFile(path: "Models.swift", text: text), name: "Models.swift")
        let step = try #require(Generator.generateMigration(inputs, name: "titles", namespace: "TodoHistory").files["Migration0002.swift"])
        #expect(step.contains("// WARNING: in HistoryTodo, \"name\" is dropped with its values and \"title\", \"dueAt\", \"position\" added."))
        #expect(step.contains(".addColumn(CRUDSchemaColumn(\"title\", .text), table: \"HistoryTodo\"),"))
        #expect(step.contains(".dropColumn(\"name\", table: \"HistoryTodo\"),"))
        #expect(!step.contains(".renameColumn("))
    }

    @Test("a Double column made an Int: the step retypes it, with a comment saying a fraction fails it and how to round instead")
    func lossyRetype() throws {
        var inputs = try Self.inputs(release: 3, steps: 3)
        let text = String(decoding: inputs[0].file.bytes, as: UTF8.self)
        #expect(text.contains("var position: Int"))
        inputs[0] = GeneratorInput(file: SourceFile(path: "Models.swift", text: text.replacingOccurrences(of: "var position: Int", with: "var position: Double")),
                                   name: "Models.swift")
        let toDouble = try #require(Generator.generateMigration(inputs, name: "fractional positions", namespace: "TodoHistory").files["Migration0004.swift"])
        #expect(!toDouble.contains("convertColumn"), "an integer made a Double loses nothing")
        inputs.append(GeneratorInput(file: SourceFile(path: "Migration0004.swift", text: toDouble), name: "Migration0004.swift"))
        inputs[0] = GeneratorInput(file: SourceFile(path: "Models.swift", text: text), name: "Models.swift")
        let step = try #require(Generator.generateMigration(inputs, name: "whole positions", namespace: "TodoHistory").files["Migration0005.swift"])
        let expected = [
            "// HistoryTodo.position becomes an integer: a value with a fraction fails this step, naming its row, on every",
            "// database. To round such values instead, replace the change below with:",
            "// .convertColumn(from: CRUDSchemaColumn(\"position\", .real(bits: 64)), to: CRUDSchemaColumn(\"position\", "
                + ".integer(bits: 64, signed: true)), table: \"HistoryTodo\", by: .rounding),",
            ".alterColumn(from: CRUDSchemaColumn(\"position\", .real(bits: 64)),",
        ]
        let lines = step.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.firstIndex(of: expected[0]), "\(step)")
        #expect(Array(lines[start ..< min(lines.count, start + 4)]) == expected)
    }

    @Test("a model renamed, with its table: the step drops and creates, with a loud comment saying how to keep the rows")
    func renamedTable() throws {
        var inputs = try Self.inputs(release: 3, steps: 3)
        let text = String(decoding: inputs[0].file.bytes, as: UTF8.self).replacingOccurrences(of: "struct HistoryTodo:", with: "struct HistoryTask:")
            .replacingOccurrences(of: "CRUDConstraint<HistoryTodo>", with: "CRUDConstraint<HistoryTask>")
            .replacingOccurrences(of: "CRUDIndex<HistoryTodo>", with: "CRUDIndex<HistoryTask>")
        inputs[0] = GeneratorInput(file: SourceFile(path: "Models.swift", text: text), name: "Models.swift")
        let step = try #require(Generator.generateMigration(inputs, name: "tasks", namespace: "TodoHistory").files["Migration0004.swift"])
        #expect(step.contains("// WARNING: the tables \"HistoryTodo\" are dropped with their rows and \"HistoryTask\" created."))
        #expect(step.contains(".dropTable(\"HistoryTodo\"),"))
        #expect(step.contains(".createTable(CRUDSchemaTable(\"HistoryTask\""))
    }

    @Test("a step edited by hand into what cannot be read, and two steps with one number, are errors at their lines")
    func unreadableSteps() throws {
        var inputs = try Self.inputs(release: 3)
        let edited = try Self.committed("Migration0002.swift").replacingOccurrences(of: "CRUDSchemaColumn(\"position\", .integer(bits: 64, signed: true))",
                                                                                      with: "CRUDSchemaColumn(\"position\", .integer(bits: 7, signed: true))")
        inputs[2] = GeneratorInput(file: SourceFile(path: "Migration0002.swift", text: edited), name: "Migration0002.swift")
        let output = Generator.generateMigration(inputs, name: "next", namespace: "TodoHistory")
        #expect(output.files.isEmpty)
        #expect(output.diagnostics.map(\.description).contains { $0.hasPrefix("Migration0002.swift:38:42: error: the frozen migration 'migration0002' cannot be read: a column's type is one of") },
                "\(output.diagnostics)")
        #expect(Generator.generate(inputs).diagnostics.allSatisfy { $0.severity == .warning }, "the build goes on; the command refuses")
        let only = try Self.committed("Migration0001.swift").replacingOccurrences(of: ".integer(bits: 64, signed: true)", with: ".integer(bits: 7, signed: true)")
        let onlyStep = [try Self.inputs(release: 2, steps: 0)[0], GeneratorInput(file: SourceFile(path: "Migration0001.swift", text: only), name: "Migration0001.swift")]
        #expect(Generator.generate(onlyStep).diagnostics.contains { $0.severity == .warning && $0.message.contains("cannot be read") },
                "a target whose only step cannot be read is told so by the build")

        var twice = try Self.inputs(release: 3)
        let copy = try Self.committed("Migration0002.swift").replacingOccurrences(of: "migration0002", with: "migration0002b")
            .replacingOccurrences(of: "0002 titles and due dates", with: "0002 another")
        twice.append(GeneratorInput(file: SourceFile(path: "Copy.swift", text: copy), name: "Copy.swift"))
        #expect(Generator.generateMigration(twice, name: "next", namespace: "TodoHistory").diagnostics.map(\.message)
            .contains { $0.contains("have the same number 2") })
    }

    @Test("the example service's steps are current with its models, and its diagram, here and in CRUD's DocC catalogue, is what the generator draws")
    func exampleDiagram() throws {
        let root = Self.tests.deletingLastPathComponent()
        let sources = root.appending(path: "Examples/Todos/Sources/todos-server")
        let files = try #require(FileManager.default.subpaths(atPath: sources.path)).filter { $0.hasSuffix(".swift") }.sorted()
        let inputs = try files.map { file in
            GeneratorInput(file: SourceFile(path: file, bytes: Array(try Data(contentsOf: sources.appending(path: file)))), name: file)
        }
        let output = Generator.generateMigration(inputs, name: "check", namespace: "SchemaHistory")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        #expect(output.stepName == nil, "the example's models moved past its last step")
        let picture = try String(contentsOf: root.appending(path: "Examples/Todos/Schema.svg"), encoding: .utf8)
        #expect(output.diagramSVG == picture)
        #expect(output.diagram == (try String(contentsOf: root.appending(path: "Examples/Todos/Schema.md"), encoding: .utf8)))
        #expect(try String(contentsOf: root.appending(path: "Sources/CRUD/Documentation.docc/Resources/todos-schema.svg"), encoding: .utf8) == picture)
        #expect(picture.contains(">Todo</text>") && picture.contains(">userId: int64</text>") && picture.contains("marker-end"))
    }

    @Test("every truncation of a step and of a model file is read without a crash or a hang: an error or warnings, never a wrong step")
    func truncatedInputs() throws {
        let step = Array(try Self.committed("Migration0002.swift").utf8)
        let models = try Self.inputs(release: 3, steps: 0)[0]
        for length in stride(from: 0, through: step.count, by: 5) {
            var inputs = try Self.inputs(release: 3, steps: 1)
            inputs.append(GeneratorInput(file: SourceFile(path: "Migration0002.swift", bytes: Array(step.prefix(length))), name: "Migration0002.swift"))
            let output = Generator.generateMigration(inputs, name: "next", namespace: "TodoHistory")
            if length < step.count - 2, output.stepName != nil {
                // A cut that leaves no step behind reads as the first step's schema: the next one goes on from there.
                #expect(output.files.keys.contains("Migration0002.swift"), "cut at \(length)")
            }
            _ = Generator.generate(inputs)
        }
        for length in stride(from: 0, through: models.file.bytes.count, by: 3) {
            let cut = GeneratorInput(file: SourceFile(path: "Models.swift", bytes: Array(models.file.bytes.prefix(length))), name: "Models.swift")
            _ = Generator.generateMigration([cut] + (try Self.inputs(release: 3, steps: 2).dropFirst()), name: "next", namespace: "TodoHistory")
        }
    }

    @Test("a last step edited by hand into a schema no database can have is an error of the command, naming every problem")
    func impossibleSnapshot() throws {
        var inputs = try Self.inputs(release: 3, steps: 3)
        let edited = try Self.committed("Migration0003.swift")
            .replacingOccurrences(of: "CRUDSchemaIndex(\"index_HistoryTodo_title\", columns: [\"title\"]),\n        ]),\n    ]))",
                                  with: "CRUDSchemaIndex(\"index_HistoryTodo_title\", columns: [\"heading\"]),\n        ]),\n    ]))")
            .replacingOccurrences(of: "references: \"HistoryUser\", referencedColumns: [\"id\"], onDelete: .cascade),\n        ], indexes",
                                  with: "references: \"Owner\", referencedColumns: [\"id\"], onDelete: .cascade),\n        ], indexes")
        inputs[3] = GeneratorInput(file: SourceFile(path: "Migration0003.swift", text: edited), name: "Migration0003.swift")
        let output = Generator.generateMigration(inputs, name: "next", namespace: "TodoHistory")
        #expect(output.files.isEmpty)
        let message = try #require(output.diagnostics.first { $0.severity == .error }).description
        #expect(message.hasPrefix("Migration0003.swift:12:"), "\(message)")
        #expect(message.contains("the index \"index_HistoryTodo_title\" on \"heading\"") && message.contains("to \"Owner\", which the schema lacks"),
                "\(message)")
    }

    @Test("a column whose storage takes running code to know is an error of the command, naming the fix")
    func unknownStorage() {
        let source = """
            import CRUD
            struct Tag: CRUDValue { }
            struct Note: CRUDModel {
                var id: Int
                var tag: Tag
            }
            """
        let output = Generator.generateMigration([GeneratorInput(file: SourceFile(path: "Note.swift", text: source), name: "Note.swift")],
                                                 name: "initial", namespace: "History")
        #expect(output.files.isEmpty)
        #expect(output.diagnostics.map(\.description) == [
            "Note.swift:5:9: error: crud-migrations cannot tell how 'Note.tag' ('Tag') is stored without running code: declare it in the type, "
                + "as 'static let crudColumnType: CRUDColumnType = .text' (or the type it is)",
        ])
        let declared = source.replacingOccurrences(of: "struct Tag: CRUDValue { }", with: "struct Tag: CRUDValue { static let crudColumnType: CRUDColumnType = .text }")
        let fixed = Generator.generateMigration([GeneratorInput(file: SourceFile(path: "Note.swift", text: declared), name: "Note.swift")],
                                                name: "initial", namespace: "History")
        #expect(fixed.files["Migration0001.swift"]?.contains("CRUDSchemaColumn(\"tag\", .text)") == true)
    }
}

/// A typed check read from the source: frozen into a step as the runtime freezes it
/// (`TypedCheckTests` in CRUDTests expects the same text from the same declaration).
@Suite("Typed checks in migrations")
struct TypedCheckGenerationTests {
    static let model = #"""
        import CRUD

        struct Gauge: CRUDModel {
            let id: Int
            var label: String
            var level: Double
            var active: Bool
            var note: String?

            static let crudConstraints: [CRUDConstraint<Gauge>] = [
                .check((\Gauge.level >= 0 && \Gauge.level < 1.5 || !(\Gauge.label == "it's")) && \Gauge.note != nil && \Gauge.active == true,
                       name: "gauge_sane"),
            ]
        }
        """#

    @Test("the step has the check in standard SQL, as the runtime writes it, and reads it back unchanged")
    func frozen() throws {
        let input = GeneratorInput(file: SourceFile(path: "Models.swift", text: Self.model), name: "Models.swift")
        let output = Generator.generateMigration([input], name: "gauges", namespace: "History")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let step = try #require(output.files["Migration0001.swift"])
        let condition = #"(((("level" >= 0.0 AND "level" < 1.5) OR NOT ("label" = 'it''s')) AND "note" IS NOT NULL) AND "active" = TRUE)"#
        #expect(step.contains(".typedCheck(\"gauge_sane\", condition: \(swiftLiteral(condition)))"), "\(step)")
        let again = Generator.generateMigration([input, GeneratorInput(file: SourceFile(path: "Migration0001.swift", text: step), name: "Migration0001.swift")],
                                                name: "again", namespace: "History")
        #expect(again.files.isEmpty && again.diagnostics.isEmpty, "read back, the step's check is the model's: \(again.diagnostics)")
    }

    @Test("what a typed check cannot freeze is an error at its place, saying to write it as SQL text")
    func unreadable() {
        let source = Self.model.replacingOccurrences(of: #"\Gauge.level < 1.5"#, with: #"\Gauge.level < \Gauge.id"#)
        let output = Generator.generateMigration([GeneratorInput(file: SourceFile(path: "Models.swift", text: source), name: "Models.swift")],
                                                 name: "gauges", namespace: "History")
        #expect(output.diagnostics.contains { $0.description.contains("Models.swift:11:53:") && $0.description.contains("SQL text") },
                "\(output.diagnostics)")
    }

    /// `text` as a Swift string literal, as the step writes it.
    func swiftLiteral(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// `crudNeverReusesKeys`, read from the source: carried by the step that creates the table, turned
/// on later by a step of its own, and refused where it cannot hold.
@Suite("Keys never reused in migrations")
struct NeverReusedKeysGenerationTests {
    static let model = """
        import CRUD

        struct Ticket: CRUDModel {
            let id: Int
            var title: String
            static let crudNeverReusesKeys = true
        }
        """

    static func generate(_ files: [(String, String)], name: String) -> MigrationOutput {
        Generator.generateMigration(files.map { GeneratorInput(file: SourceFile(path: $0.0, text: $0.1), name: $0.0) }, name: name, namespace: "History")
    }

    @Test("the step that creates the table carries it, and reads it back unchanged")
    func created() throws {
        let output = Self.generate([("Models.swift", Self.model)], name: "tickets")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let step = try #require(output.files["Migration0001.swift"])
        #expect(step.contains("], primaryKey: \"id\", neverReusesKeys: true)),"), "\(step)")
        #expect(step.contains("], primaryKey: \"id\", neverReusesKeys: true),"), "the step's schema has it too: \(step)")
        let again = Self.generate([("Models.swift", Self.model), ("Migration0001.swift", step)], name: "again")
        #expect(again.files.isEmpty && again.diagnostics.isEmpty, "\(again.diagnostics)")
    }

    @Test("turned on for a table that exists, a step says so with setNeverReusesKeys, and the build warns until it is written")
    func turnedOn() throws {
        let before = Self.model.replacingOccurrences(of: "    static let crudNeverReusesKeys = true\n", with: "")
        let first = try #require(Self.generate([("Models.swift", before)], name: "tickets").files["Migration0001.swift"])
        #expect(!first.contains("neverReusesKeys"))
        let output = Self.generate([("Models.swift", Self.model), ("Migration0001.swift", first)], name: "keys never reused")
        let step = try #require(output.files["Migration0002.swift"])
        #expect(step.contains(".setNeverReusesKeys(true, table: \"Ticket\"),"), "\(step)")
        #expect(step.contains("/// - makes Ticket never reuse keys"), "\(step)")
        let build = Generator.generate([GeneratorInput(file: SourceFile(path: "Models.swift", text: Self.model), name: "Models.swift"),
                                        GeneratorInput(file: SourceFile(path: "Migration0001.swift", text: first), name: "Migration0001.swift")])
        #expect(build.diagnostics.contains { $0.description.contains("'Ticket' never reuses keys now with no migration") }, "\(build.diagnostics)")
    }

    @Test("a value that is not a literal, or a key the database cannot make, is an error at the value")
    func refused() {
        let computed = Self.generate([("Models.swift", Self.model.replacingOccurrences(of: "= true", with: "= Bool(\"true\")!"))], name: "tickets")
        #expect(computed.diagnostics.map(\.description).contains { $0.hasPrefix("Models.swift:6:38: error:") && $0.contains("the literal true or false") },
                "\(computed.diagnostics)")
        let textKey = Self.generate([("Models.swift", Self.model.replacingOccurrences(of: "let id: Int", with: "let id: String"))], name: "tickets")
        #expect(textKey.diagnostics.map(\.description).contains { $0.contains("the primary key 'id' is not an integer") }, "\(textKey.diagnostics)")
    }
}

import CRUDGenerator
import Foundation
import Testing

/// Runs the generator over each folder of `Schemas/` and compares with `Snapshots/<folder>.swift.txt`.
/// Set `CRUD_RECORD_SNAPSHOTS=1` to write the current output as the new expectation instead.
@Suite("Snapshots")
struct SnapshotTests {
    static let sets = ["all-column-types", "lexer-torture", "perfect-crud-readme", "row-readers", "sqlable-bicycle", "timestamps"]

    static func output(for set: String) throws -> GeneratorOutput {
        let directory = Paths.schemas.appending(path: set)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted()
        let inputs = try names.map { name in
            let bytes = try Data(contentsOf: directory.appending(path: name))
            return GeneratorInput(file: SourceFile(path: "\(set)/\(name)", bytes: Array(bytes)), name: "\(set)/\(name)")
        }
        return Generator.generate(inputs)
    }

    @Test("generated code matches the recorded snapshot", arguments: sets)
    func snapshot(set: String) throws {
        let output = try Self.output(for: set)
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let generated = try #require(output.source)
        let snapshot = Paths.snapshots.appending(path: "\(set).swift.txt")
        if ProcessInfo.processInfo.environment["CRUD_RECORD_SNAPSHOTS"] == "1" {
            try generated.write(to: snapshot, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try String(contentsOf: snapshot, encoding: .utf8)
        if recorded != generated {
            Issue.record("""
                \(set): generated code differs from Snapshots/\(set).swift.txt (rerun with CRUD_RECORD_SNAPSHOTS=1 to accept):
                \(lineDiff(expected: recorded, actual: generated))
                """)
        }
    }

    /// Two processes, so that hash seeds, and with them `Set` and `Dictionary` order, differ.
    @Test("the same input gives byte-identical output from two crud-gen processes", arguments: sets)
    func deterministic(set: String) throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "crud-determinism-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var outputs: [Data] = []
        for run in 0 ..< 2 {
            let output = directory.appending(path: "run\(run).swift")
            let result = try runProcess(Paths.crudGen, ["--output", output.path, "--root", Paths.schemas.path, Paths.schemas.appending(path: set).path])
            #expect(result.status == 0, "\(result.error)")
            outputs.append(try Data(contentsOf: output))
        }
        #expect(outputs[0] == outputs[1])
        #expect(String(decoding: outputs[0], as: UTF8.self) == (try Self.output(for: set).source))
    }

    @Test("every model of each set is found")
    func modelsFound() throws {
        #expect(try Self.output(for: "perfect-crud-readme").modelNames
            == ["TestTable1", "TestTable2", "PhoneNumber", "Person", "Parent", "Child", "Student", "Class", "StudentClasses", "Me"])
        #expect(try Self.output(for: "sqlable-bicycle").modelNames == ["Bicycle"])
        #expect(try Self.output(for: "row-readers").modelNames == ["KeyedOutOfOrder", "OwnInitializer", "PrivateState", "LazyDerived"])
        #expect(try Self.output(for: "timestamps").modelNames == ["Note", "Setting"])
        #expect(try Self.output(for: "lexer-torture").modelNames == [
            "Decorated", "SharedType", "AuditEntry", "PlatformNote", "PlatformNote", "PlatformNote", "NeverCompiled", "Conditional",
            "Outer.Inner", "Outer.FromExtension", "Namespace.Deeper.Deepest",
            "BetweenRawQuotes", "GenericInitializers", "PerBranch", "PerBranch", "ReorderedKeys", "TortureStrings",
        ])
    }
}

/// A readable line diff: the first differing lines with a little context.
func lineDiff(expected: String, actual: String) -> String {
    let old = expected.components(separatedBy: "\n")
    let new = actual.components(separatedBy: "\n")
    var report: [String] = []
    var shown = 0
    for index in 0 ..< max(old.count, new.count) where shown < 20 {
        let before = index < old.count ? old[index] : nil
        let after = index < new.count ? new[index] : nil
        guard before != after else { continue }
        shown += 1
        report.append("line \(index + 1):")
        if let before { report.append("- " + before) }
        if let after { report.append("+ " + after) }
    }
    return report.joined(separator: "\n")
}

import Foundation
import Testing

/// `crud-gen` as people without the plugin run it.
@Suite("crud-gen command")
struct CommandLineTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "crud-gen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("--help explains the usage and exits 0")
    func help() throws {
        let result = try runProcess(Paths.crudGen, ["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("USAGE: crud-gen --output <file>"))
    }

    @Test("bad usage and unreadable inputs exit 2 with a message")
    func badUsage() throws {
        let missingOutput = try runProcess(Paths.crudGen, ["Some.swift"])
        #expect(missingOutput.status == 2)
        #expect(missingOutput.error.contains("crud-gen: error: missing --output <file>"))
        let missingInput = try runProcess(Paths.crudGen, ["--output", "/tmp/x.swift", "/nonexistent/Models.swift"])
        #expect(missingInput.status == 2)
        #expect(missingInput.error.contains("cannot read '/nonexistent/Models.swift'"))
        #expect(!missingInput.error.contains("USAGE"), "a file problem prints only the error")
    }

    @Test("an output file that cannot be written prints only the error and exits 2")
    func unwritableOutput() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appending(path: "Car.swift")
        try "struct Car: CRUDModel {\n    let id: Int\n}\n".write(to: model, atomically: true, encoding: .utf8)
        let output = directory.appending(path: "Out.swift")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let result = try runProcess(Paths.crudGen, ["--output", output.path, model.path])
        #expect(result.status == 2)
        #expect(result.error == "crud-gen: error: cannot write '\(output.path)': it is a directory\n")
    }

    @Test("directories are searched, the header lists inputs relative to --root, and an unchanged output is not rewritten")
    func writesOnlyOnChange() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let models = directory.appending(path: "Models")
        try FileManager.default.createDirectory(at: models.appending(path: "Nested"), withIntermediateDirectories: true)
        try "struct Car: CRUDModel {\n    let id: Int\n}\n".write(to: models.appending(path: "Car.swift"), atomically: true, encoding: .utf8)
        try "struct Wheel: CRUDModel {\n    let id: Int\n}\n".write(to: models.appending(path: "Nested/Wheel.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: models.appending(path: "Checkout.swift/Sources"), withIntermediateDirectories: true)
        try "struct Seat: CRUDModel {\n    let id: Int\n}\n".write(to: models.appending(path: "Checkout.swift/Sources/Seat.swift"), atomically: true, encoding: .utf8)
        let output = models.appending(path: "Generated.swift")

        let first = try runProcess(Paths.crudGen, ["--output", output.path, "--root", directory.path, models.path])
        #expect(first.status == 0, "\(first.error)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains("//   Models/Car.swift\n//   Models/Checkout.swift/Sources/Seat.swift\n//   Models/Nested/Wheel.swift\n"),
                "a folder named like a Swift file is searched, not read")
        #expect(!text.contains("Generated.swift"))
        #expect(["Car", "Wheel", "Seat"].allSatisfy { text.contains("extension \($0): CRUDIdentifiedModel {") })

        let past = Date(timeIntervalSinceNow: -3_600)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: output.path)
        let second = try runProcess(Paths.crudGen, ["--output", output.path, "--root", directory.path, models.path])
        #expect(second.status == 0)
        let modified = try FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date
        #expect(modified.map { abs($0.timeIntervalSince(past)) < 1 } == true, "an unchanged output must keep its modification time")

        try "struct Car: CRUDModel {\n    let id: Int\n    var make: String\n}\n".write(to: models.appending(path: "Car.swift"), atomically: true, encoding: .utf8)
        let third = try runProcess(Paths.crudGen, ["--output", output.path, "--root", directory.path, models.path])
        #expect(third.status == 0)
        #expect(try String(contentsOf: output, encoding: .utf8).contains("static var make: CRUDColumn<Car, String> { CRUDColumn(1, \"make\") }"))
    }

    @Test("a bad model prints path:line:column: error: and exits 1 without writing")
    func badModel() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appending(path: "Bad.swift")
        try "import CRUD\n\nclass Bad: CRUDModel {\n    let id = 1\n}\n".write(to: model, atomically: true, encoding: .utf8)
        let output = directory.appending(path: "Out.swift")
        let result = try runProcess(Paths.crudGen, ["-o", output.path, model.path])
        #expect(result.status == 1)
        #expect(result.error.contains("\(model.path):3:1: error: 'Bad' is a class; CRUDModel works on structs"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

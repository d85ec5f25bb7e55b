@testable import CRUDGenerator
import Foundation
import Testing

/// Feeds the generator thousands of broken variants of real model files: it must always finish and
/// give either code or error diagnostics, never crash or hang.
@Suite("Bad input")
struct FuzzTests {
    /// A small deterministic generator, so a failure reproduces from its seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func corpus() throws -> [[UInt8]] {
        var files: [[UInt8]] = []
        let enumerator = FileManager.default.enumerator(atPath: Paths.schemas.path)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            files.append(Array(try Data(contentsOf: Paths.schemas.appending(path: relative))))
        }
        return files
    }

    static let fragments: [[UInt8]] = [
        "{", "}", "(", ")", "[", "]", "\"", "\"\"\"", "#\"", "\"#", "\\(", "/*", "*/", "//", "#if X\n", "#endif\n",
        "#else\n", "struct S: CRUDModel {", "var x: ", "let y = ", "enum CodingKeys: String, CodingKey { case ",
        "static let tableName = ", "@available(", "`", "<", ">", "?", "!", ":", ",", "\n", "extension ", "#/", "/#",
        "[Self]?", "[Int]?", "Optional<", "\u{0}", "\u{FF}",
    ].map { Array($0.utf8) }

    static func mutate(_ source: [UInt8], _ random: inout SplitMix) -> [UInt8] {
        var bytes = source
        for _ in 0 ..< Int.random(in: 1 ... 6, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0 ... bytes.count, using: &random)
            switch Int.random(in: 0 ..< 6, using: &random) {
            case 0:
                bytes = Array(bytes.prefix(position))
            case 1:
                bytes.insert(contentsOf: fragments.randomElement(using: &random)!, at: position)
            case 2:
                if position < bytes.count { bytes.remove(at: position) }
            case 3:
                bytes.insert(contentsOf: (0 ..< Int.random(in: 1 ... 16, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }, at: position)
            case 4:
                let end = min(bytes.count, position + Int.random(in: 1 ... 200, using: &random))
                bytes.removeSubrange(position ..< end)
            default:
                if position < bytes.count { bytes[position] = UInt8.random(in: 0 ... 255, using: &random) }
            }
        }
        return bytes
    }

    @Test("mutated model files", .timeLimit(.minutes(2)))
    func mutatedFiles() throws {
        let corpus = try Self.corpus()
        #expect(corpus.count >= 10)
        var random = SplitMix(state: 0xC0FFEE)
        for iteration in 0 ..< 3_000 {
            let bytes = Self.mutate(corpus[iteration % corpus.count], &random)
            let output = Generator.generate([GeneratorInput(file: SourceFile(path: "fuzz\(iteration).swift", bytes: bytes), name: "fuzz.swift")])
            Self.checkInvariants(output, of: bytes, "iteration \(iteration)")
        }
    }

    /// What must hold for any input: each diagnostic points inside its file, and the generated file
    /// has one section per model found, in the order reported.
    static func checkInvariants(_ output: GeneratorOutput, of bytes: [UInt8], _ comment: Comment) {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for diagnostic in output.diagnostics {
            let inside = diagnostic.line >= 1 && diagnostic.line <= lines.count
                && diagnostic.column >= 1 && diagnostic.column <= lines[diagnostic.line - 1].count + 1
            #expect(inside, "\(comment): \(diagnostic) lies outside the file's \(lines.count) lines")
        }
        guard let source = output.source else { return }
        let sections = source.split(separator: "\n").filter { $0.hasPrefix("// MARK: - ") && $0 != "// MARK: - Column value conformances" }
        // Each heading is `Name — file:line`, the line inside the file.
        let headings = sections.map { $0.dropFirst("// MARK: - ".count).components(separatedBy: " — ") }
        #expect(headings.map { $0[0] } == output.modelNames, "\(comment)")
        for heading in headings {
            let line = heading.last.flatMap { $0.split(separator: ":").last }.flatMap { Int($0) }
            #expect(line.map { $0 >= 1 && $0 <= lines.count } == true, "\(comment): \(heading)")
        }
    }

    @Test("deep nesting of braces, parentheses, types, interpolations and comments", .timeLimit(.minutes(1)))
    func deepNesting() {
        let depth = 50_000
        let inputs: [String] = [
            String(repeating: "{", count: depth),
            String(repeating: "(", count: depth) + String(repeating: ")", count: depth),
            String(repeating: "struct A { ", count: depth) + String(repeating: "}", count: depth),
            String(repeating: "\"\\(", count: depth),
            String(repeating: "/*", count: depth),
            String(repeating: "[", count: depth) + "struct S: CRUDModel { let id: Int }",
            "struct S: CRUDModel { let x: " + String(repeating: "Optional<", count: depth) + "Int" + String(repeating: ">", count: depth) + " }",
            String(repeating: "#if A\n", count: depth) + "struct S: CRUDModel { let id: Int }",
            String(repeating: "}", count: depth) + "struct S: CRUDModel { let id: Int }",
        ]
        for (number, input) in inputs.enumerated() {
            Self.checkInvariants(generate(input), of: Array(input.utf8), "input \(number)")
        }
    }

    @Test("random bytes", .timeLimit(.minutes(1)))
    func randomBytes() {
        var random = SplitMix(state: 42)
        for _ in 0 ..< 500 {
            let bytes = (0 ..< Int.random(in: 0 ... 2_000, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            let output = Generator.generate([GeneratorInput(file: SourceFile(path: "r.swift", bytes: bytes), name: "r.swift")])
            Self.checkInvariants(output, of: bytes, "random input")
        }
    }
}

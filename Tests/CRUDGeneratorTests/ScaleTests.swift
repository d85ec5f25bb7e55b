import CRUDGenerator
import Foundation
import Testing

/// The generator's input at scale: 1,000 model files of ten properties each, as
/// `Scripts/measure-generator.sh` times it in a release build, from the same template.
@Suite("Scale")
struct ScaleTests {
    static func modelFile(_ index: Int, template: String) -> String {
        template.replacingOccurrences(of: "__INDEX__", with: String(index))
            .replacingOccurrences(of: "__PREVIOUS__", with: String(index == 0 ? 0 : index - 1))
    }

    @Test("1,000 model files with 10,000 properties generate every model")
    func thousandFiles() throws {
        let template = try String(contentsOf: Paths.packageRoot.appending(path: "Scripts/scale-model.swift.template"), encoding: .utf8)
        let inputs = (0 ..< 1_000).map { index in
            GeneratorInput(file: SourceFile(path: "Model\(index).swift", text: Self.modelFile(index, template: template)), name: "Model\(index).swift")
        }
        let output = Generator.generate(inputs)
        #expect(output.diagnostics.isEmpty)
        #expect(output.modelNames.count == 1_000)
        let source = try #require(output.source)
        #expect(source.components(separatedBy: "    init<Row: CRUDRowReader>(crudRow row: Row) throws {").count == 1_001)
    }
}

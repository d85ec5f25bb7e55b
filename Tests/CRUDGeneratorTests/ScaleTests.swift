import CRUDGenerator
import Foundation
import Testing

/// The generator's input at scale: 1,000 model files of ten properties each, as
/// `Scripts/measure-generator.sh` times it in a release build.
@Suite("Scale")
struct ScaleTests {
    static func modelFile(_ index: Int) -> String {
        """
        import CRUD
        import Foundation

        /// Model number \(index).
        struct Model\(index): CRUDModel, Equatable {
            enum CodingKeys: String, CodingKey {
                case id, name = "model_name", score, flag, createdAt, note, count, ratio, payload, related
            }

            let id: Int64
            var name: String
            var score: Double
            var flag: Bool
            var createdAt: Date
            var note: String? // "a comment with { braces"
            var count: Int32
            var ratio: Float?
            var payload: [UInt8]?
            var related: [Model\(index == 0 ? 0 : index - 1)]?
            var display: String { "\\(name) #\\(id)" }
        }

        """
    }

    @Test("1,000 model files with 10,000 properties generate every model")
    func thousandFiles() throws {
        let inputs = (0 ..< 1_000).map { index in
            GeneratorInput(file: SourceFile(path: "Model\(index).swift", text: Self.modelFile(index)), name: "Model\(index).swift")
        }
        let output = Generator.generate(inputs)
        #expect(output.diagnostics.isEmpty)
        #expect(output.modelNames.count == 1_000)
        let source = try #require(output.source)
        #expect(source.components(separatedBy: "    init<Row: CRUDRowReader>(crudRow row: Row) throws {").count == 1_001)
    }
}

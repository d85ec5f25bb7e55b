import Foundation
import Testing

/// Builds a small package that applies CRUDPlugin, with `swift build`, as a user would. The fixture
/// lives under this package's `.build/` so repeated runs build incrementally.
@Suite("CRUDPlugin in a real build", .serialized)
struct PluginBuildTests {
    static let fixture = Paths.packageRoot.appending(path: ".build/crud-plugin-fixture")
    static let models = fixture.appending(path: "Sources/App/Models.swift")

    static let manifest = """
        // swift-tools-version:6.2
        import PackageDescription

        let package = Package(
            name: "PluginFixture",
            dependencies: [.package(name: "CRUD", path: \(String(reflecting: Paths.packageRoot.path)))],
            targets: [
                .executableTarget(
                    name: "App",
                    dependencies: [.product(name: "CRUD", package: "CRUD")],
                    plugins: [.plugin(name: "CRUDPlugin", package: "CRUD")]
                ),
            ]
        )

        """

    static let goodModels = """
        import CRUD

        struct Rider: CRUDModel {
            let id: Int
            var name: String
        }

        """

    static let main = """
        import CRUD

        print(Rider.crudSchema.columns.map(\\.name).joined(separator: ","))

        """

    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if (try? String(contentsOf: url, encoding: .utf8)) != text {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    static func swiftBuild() throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "XCTestConfigurationFilePath")
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "build", "--package-path", fixture.path], environment: environment)
        return ProcessResult(status: result.status, output: result.output + result.error, error: "")
    }

    static func generatedFile() throws -> URL {
        let plugins = fixture.appending(path: ".build/plugins/outputs")
        let enumerator = FileManager.default.enumerator(atPath: plugins.path)
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix("App+CRUD.swift") { return plugins.appending(path: relative) }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    static func modificationDate(_ url: URL) throws -> Date {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
    }

    @Test("build, rebuild without changes, edit a model, break a model", .timeLimit(.minutes(15)))
    func pluginBuild() throws {
        try Self.write(Self.manifest, to: Self.fixture.appending(path: "Package.swift"))
        try Self.write(Self.main, to: Self.fixture.appending(path: "Sources/App/main.swift"))
        try Self.write(Self.goodModels, to: Self.models)

        let first = try Self.swiftBuild()
        #expect(first.status == 0, "\(first.output)")
        let generated = try Self.generatedFile()
        #expect(try String(contentsOf: generated, encoding: .utf8).contains("static let name = CRUDColumn<Rider, String>(1, \"name\")"))
        let built = try Self.modificationDate(generated)

        let second = try Self.swiftBuild()
        #expect(second.status == 0, "\(second.output)")
        #expect(try Self.modificationDate(generated) == built, "an unchanged build must not rewrite the generated file")
        #expect(!second.output.contains("Compiling App"), "an unchanged build must recompile nothing:\n\(second.output)")

        try Self.write(Self.goodModels.replacingOccurrences(of: "var name: String", with: "var name: String\n    var wheels: Int?"), to: Self.models)
        let third = try Self.swiftBuild()
        #expect(third.status == 0, "\(third.output)")
        #expect(try String(contentsOf: generated, encoding: .utf8).contains("static let wheels = CRUDColumn<Rider, Int?>(2, \"wheels\")"))

        try Self.write(Self.goodModels + "\nfinal class Garage: CRUDModel {\n    let id: Int\n}\n", to: Self.models)
        let broken = try Self.swiftBuild()
        #expect(broken.status != 0)
        #expect(broken.output.contains("\(Self.models.path):8:7: error: 'Garage' is a class; CRUDModel works on structs"), "\(broken.output)")

        try Self.write(Self.goodModels, to: Self.models)
    }
}

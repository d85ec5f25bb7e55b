import Foundation
import PackagePlugin

/// `swift package crud-migrations generate <name> [--target <target>] [--namespace <type>] [--diagram <file>]`:
/// writes the next frozen migration step of a target's models into its `Migrations` folder, from the
/// same analysis the build plugin runs, and the diagram of its schema, Markdown with Mermaid and an
/// SVG picture beside it (to `--diagram`, a path
/// in the package; else into the target's DocC catalogue when it has one; else `<Target>Schema.md`
/// beside the package's manifest).
@main
struct CRUDMigrationsPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let namespace = extractor.extractOption(named: "namespace").last ?? "SchemaHistory"
        let diagramPath = extractor.extractOption(named: "diagram").last
        let words = extractor.remainingArguments
        guard words.first == "generate", words.count >= 2 else {
            throw CRUDMigrationsError("usage: swift package --allow-writing-to-package-directory crud-migrations generate <name of the step> "
                + "[--target <target>] [--namespace <type>] [--diagram <file in the package>]")
        }
        let target = try Self.target(context.package, named: targetNames)
        let directory = target.directoryURL
        let catalogue = try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false)).first { $0.hasSuffix(".docc") }
        let diagram = diagramPath.map { context.package.directoryURL.appending(path: $0) }
            ?? catalogue.map { directory.appending(path: $0).appending(path: "Schema.md") }
            ?? context.package.directoryURL.appending(path: "\(target.name)Schema.md")
        let process = Process()
        process.executableURL = try context.tool(named: "crud-gen").url
        process.arguments = ["migrations", "generate"] + words.dropFirst()
            + ["--directory", directory.appending(path: "Migrations").path(percentEncoded: false), "--namespace", namespace,
               "--diagram", diagram.path(percentEncoded: false), "--"]
            + target.sourceFiles(withSuffix: "swift").map { $0.url.path(percentEncoded: false) }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CRUDMigrationsError("crud-gen found problems in the models or the steps of \(target.name): see above")
        }
    }

    /// The target named, or the one Swift target whose files declare models.
    private static func target(_ package: Package, named names: [String]) throws -> SwiftSourceModuleTarget {
        let targets = package.targets.compactMap { $0 as? SwiftSourceModuleTarget }
        if let name = names.last {
            guard let target = targets.first(where: { $0.name == name }) else {
                throw CRUDMigrationsError("the package has no Swift target named \"\(name)\"")
            }
            return target
        }
        let withModels = targets.filter { target in
            target.kind != .test && target.sourceFiles(withSuffix: "swift").contains { file in
                (try? String(contentsOf: file.url, encoding: .utf8))?.contains("CRUDModel") == true
            }
        }
        guard withModels.count == 1, let target = withModels.first else {
            throw CRUDMigrationsError(withModels.isEmpty
                ? "no Swift target of the package declares a CRUDModel"
                : "several targets declare models (\(withModels.map(\.name).joined(separator: ", "))): name one with --target")
        }
        return target
    }
}

/// Why the command cannot run; SwiftPM prints the description.
struct CRUDMigrationsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

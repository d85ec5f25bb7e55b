import PackagePlugin

/// Runs `crud-gen` over a target's Swift files on every build and compiles the generated file into
/// the target. SwiftPM reruns it only when an input changes, and `crud-gen` rewrites the output only
/// when its content changes, so an unchanged build recompiles nothing.
@main
struct CRUDPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let sourceTarget = target as? SourceModuleTarget else { return [] }
        let inputs = sourceTarget.sourceFiles(withSuffix: "swift").map(\.url).sorted { $0.path < $1.path }
        guard !inputs.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(target.name)+CRUD.swift")
        return [
            .buildCommand(
                displayName: "Generating CRUD models for \(target.name)",
                executable: try context.tool(named: "crud-gen").url,
                arguments: ["--output", output.path(percentEncoded: false),
                            "--root", sourceTarget.directoryURL.path(percentEncoded: false), "--"]
                    + inputs.map { $0.path(percentEncoded: false) },
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}

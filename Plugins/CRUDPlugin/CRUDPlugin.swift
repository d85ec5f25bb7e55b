import Foundation
import PackagePlugin

/// Runs `crud-gen` over a target's Swift files on every build and compiles the generated file into
/// the target. SwiftPM reruns it only when an input changes, and `crud-gen` rewrites the output only
/// when its content changes, so an unchanged build recompiles nothing.
@main
struct CRUDPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let sourceTarget = target as? SourceModuleTarget, sourceTarget is SwiftSourceModuleTarget else {
            throw CRUDPluginError("""
                CRUDPlugin generates code from the Swift files of the target that declares the models, but \
                "\(target.name)" is not a Swift source target; apply the plugin to the Swift target whose \
                structs are marked CRUDModel (plugins: ["CRUDPlugin"] in that target's declaration)
                """)
        }
        return try Self.commands(target: target.name, root: sourceTarget.directoryURL,
                                 inputs: sourceTarget.sourceFiles(withSuffix: "swift").map(\.url),
                                 workDirectory: context.pluginWorkDirectoryURL, generator: context.tool(named: "crud-gen").url)
    }

    /// The one command that generates `<target>+CRUD.swift` from `inputs`; file names in the
    /// generated file are relative to `root`.
    static func commands(target: String, root: URL, inputs: [URL], workDirectory: URL, generator: URL) throws -> [Command] {
        let inputs = inputs.sorted { $0.path < $1.path }
        guard !inputs.isEmpty else {
            throw CRUDPluginError("CRUDPlugin found no Swift files in target \"\(target)\": it generates code from the models declared there")
        }
        let output = workDirectory.appending(path: "\(target)+CRUD.swift")
        return [
            .buildCommand(
                displayName: "Generating CRUD models for \(target)",
                executable: generator,
                arguments: ["--output", output.path(percentEncoded: false), "--root", root.path(percentEncoded: false), "--"]
                    + inputs.map { $0.path(percentEncoded: false) },
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}

/// Why the plugin cannot run for a target; SwiftPM and Xcode show the description as the build error.
struct CRUDPluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

/// The same command for a target of an Xcode project (Build Phases › Run Build Tool Plug-ins).
extension CRUDPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        let inputs = target.inputFiles.filter { $0.type == .source && $0.url.pathExtension == "swift" }.map(\.url)
        return try Self.commands(target: target.displayName, root: context.xcodeProject.directoryURL, inputs: inputs,
                                 workDirectory: context.pluginWorkDirectoryURL, generator: context.tool(named: "crud-gen").url)
    }
}
#endif

import CRUDGenerator
import Foundation

/// Runs the generator over in-memory files, named as given.
func generate(_ files: [(name: String, source: String)]) -> GeneratorOutput {
    Generator.generate(files.map { GeneratorInput(file: SourceFile(path: $0.name, text: $0.source), name: $0.name) })
}

func generate(_ source: String) -> GeneratorOutput {
    generate([("Model.swift", source)])
}

/// The error diagnostics, as the command line prints them.
func errors(_ source: String) -> [String] {
    generate(source).diagnostics.filter { $0.severity == .error }.map(\.description)
}

enum Paths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schemas = packageRoot.appending(path: "Schemas")
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "Snapshots")

    /// The `crud-gen` built next to this test bundle (the plugin of the schema tests makes SwiftPM build it).
    static var crudGen: URL {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [bundleDirectory, bundleDirectory.deletingLastPathComponent()] {
            let candidate = directory.appending(path: "crud-gen")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appending(path: ".build/debug/crud-gen")
    }
}

struct ProcessResult: Sendable {
    var status: Int32
    var output: String
    var error: String
}

/// Runs a program to completion and captures what it prints.
func runProcess(_ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    // Not `waitUntilExit()`: it polls a run loop and, off the main thread and under load, can miss
    // the exit and wait forever (swift-corelibs-foundation). The termination handler is called by
    // Foundation's own watch of the child.
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    // Read both pipes while the process runs so a chatty process cannot block on a full pipe.
    nonisolated(unsafe) var errorData = Data()
    let errorReader = Thread { errorData = errorPipe.fileHandleForReading.readDataToEndOfFile() }
    errorReader.start()
    let outputData = outputPipe.fileHandleForReading.readDataToEndOfFile()
    exited.wait()
    while !errorReader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
    return ProcessResult(status: process.terminationStatus,
                         output: String(decoding: outputData, as: UTF8.self),
                         error: String(decoding: errorData, as: UTF8.self))
}

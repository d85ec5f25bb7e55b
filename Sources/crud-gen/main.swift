import CRUDGenerator
import Foundation

let usage = """
    USAGE: crud-gen --output <file> [--root <directory>] <file or directory> ...
           crud-gen migrations generate <name> --directory <directory> [--namespace <type>] [--diagram <file>] <file or directory> ...

    Reads Swift files (directories are searched for .swift files), finds the structs marked CRUDModel
    and writes their generated code to one file. Problems in the models are printed to standard error
    as path:line:column: error: message, and the exit status is then 1 (2 for bad usage or unreadable
    files). The output file is written only when its content changes, so an unchanged build recompiles
    nothing.

    OPTIONS:
      -o, --output <file>     Where to write the generated Swift file.
      --root <directory>      List inputs in the generated file's header relative to this directory
                              (default: the current directory).
      -h, --help              Show this help.

    MIGRATIONS:
      `migrations generate` compares the models with the schema of the last frozen migration step
      among the inputs and writes the next step into the directory (MigrationNNNN.swift and the list
      of steps, <type>.swift), and a Mermaid diagram of the schema; with no change it writes nothing.
      --directory <directory> Where the steps are written (the target's Migrations folder).
      --namespace <type>      The type the steps extend, when there are none yet (default: SchemaHistory).
      --diagram <file>        Where the diagram is written, as Markdown with Mermaid (default: none); its SVG
                              picture goes beside it, named as it is with .svg.

    """

/// Bad arguments: printed with the usage text.
struct UsageError: Error {
    var message: String
}

/// A file that cannot be read or written: printed alone, since the arguments were fine.
struct FileError: Error {
    var message: String
}

struct Options {
    var output: String
    var root: String
    var inputs: [String]

    init(_ arguments: [String]) throws {
        var output: String?
        var root = FileManager.default.currentDirectoryPath
        var inputs: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-o", "--output":
                guard let value = remaining.popFirst() else { throw UsageError(message: "\(argument) needs a file path") }
                output = value
            case "--root":
                guard let value = remaining.popFirst() else { throw UsageError(message: "--root needs a directory") }
                root = value
            case "--":
                inputs += remaining
                remaining = []
            case _ where argument.hasPrefix("-") && argument.count > 1:
                throw UsageError(message: "unknown option '\(argument)'")
            default:
                inputs.append(argument)
            }
        }
        guard let output else { throw UsageError(message: "missing --output <file>") }
        guard !inputs.isEmpty else { throw UsageError(message: "no input files or directories given") }
        self.output = output
        self.root = root
        self.inputs = inputs
    }
}

/// The absolute, standardized form of a path, for comparing and relativizing.
func absolutePath(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
}

/// Every .swift file named or below a named directory, except the output file, sorted.
func collectSwiftFiles(_ inputs: [String], excluding output: String) throws -> [String] {
    let fileManager = FileManager.default
    var files: [String] = []
    for input in inputs {
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: input, isDirectory: &isDirectory) else {
            throw FileError(message: "cannot read '\(input)': no such file or directory")
        }
        guard isDirectory.boolValue else {
            files.append(input)
            continue
        }
        guard let enumerator = fileManager.enumerator(atPath: input) else {
            throw FileError(message: "cannot list directory '\(input)'")
        }
        while let relative = enumerator.nextObject() as? String {
            let last = (relative as NSString).lastPathComponent
            if last.hasPrefix(".") || last == ".build" {
                enumerator.skipDescendants()
                continue
            }
            let path = (input as NSString).appendingPathComponent(relative)
            // A folder may be named like a Swift file (a checkout of `GRDB.swift`): it is searched, not read.
            var isFolder: ObjCBool = false
            if relative.hasSuffix(".swift"), fileManager.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                files.append(path)
            }
        }
    }
    let outputPath = absolutePath(output)
    return Array(Set(files)).filter { absolutePath($0) != outputPath }.sorted()
}

func relativeName(_ path: String, root: String) -> String {
    let absolute = absolutePath(path)
    let base = absolutePath(root)
    let prefix = base.hasSuffix("/") ? base : base + "/"
    return absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute
}

/// Writes `contents` unless the file already holds exactly that.
func writeIfChanged(_ contents: String, to path: String) throws {
    let data = Data(contents.utf8)
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        throw FileError(message: "cannot write '\(path)': it is a directory")
    }
    if let existing = FileManager.default.contents(atPath: path), existing == data { return }
    let directory = (path as NSString).deletingLastPathComponent
    do {
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw FileError(message: "cannot write '\(path)': \(error.localizedDescription)")
    }
}

/// The inputs' files, read, named relative to `root` and sorted by name.
func readInputs(_ paths: [String], root: String) throws -> [GeneratorInput] {
    var inputs: [GeneratorInput] = []
    for path in paths {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw FileError(message: "cannot read '\(path)'")
        }
        inputs.append(GeneratorInput(file: SourceFile(path: path, bytes: Array(contents)), name: relativeName(path, root: root)))
    }
    return inputs.sorted { $0.name < $1.name }
}

/// `crud-gen migrations generate …`.
func runMigrations(_ arguments: [String]) throws -> Int32 {
    var remaining = arguments[...]
    guard remaining.popFirst() == "generate" else { throw UsageError(message: "migrations takes the command 'generate'") }
    var directory: String?
    var namespace = "SchemaHistory"
    var diagram: String?
    var words: [String] = []
    var inputs: [String] = []
    while let argument = remaining.popFirst() {
        switch argument {
        case "--directory", "--namespace", "--diagram":
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(argument) needs a value") }
            if argument == "--directory" { directory = value } else if argument == "--namespace" { namespace = value } else { diagram = value }
        case "--":
            inputs += remaining
            remaining = []
        case _ where argument.hasPrefix("-"):
            throw UsageError(message: "unknown option '\(argument)'")
        default:
            words.append(argument)
        }
    }
    guard let directory else { throw UsageError(message: "missing --directory <directory>") }
    let name = words.joined(separator: " ")
    guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || " -_".contains($0) }) else {
        throw UsageError(message: "name the step in letters, digits, spaces, '-' and '_', as: crud-gen migrations generate add priority ...")
    }
    guard !inputs.isEmpty else { throw UsageError(message: "no input files or directories given") }
    let files = try readInputs(try collectSwiftFiles(inputs + [directory].filter { FileManager.default.fileExists(atPath: $0) }, excluding: ""),
                               root: FileManager.default.currentDirectoryPath)
    let image = diagram.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension + ".svg" } ?? "Schema.svg"
    let output = Generator.generateMigration(files, name: name, namespace: namespace, diagramImage: image)
    for diagnostic in output.diagnostics {
        FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
    }
    if output.diagnostics.contains(where: { $0.severity == .error }) { return 1 }
    if let diagram {
        try writeIfChanged(output.diagram, to: diagram)
        try writeIfChanged(output.diagramSVG, to: ((diagram as NSString).deletingLastPathComponent as NSString).appendingPathComponent(image))
    }
    guard let stepName = output.stepName else {
        print("The models match the last migration step: nothing to generate.")
        return 0
    }
    for (file, contents) in output.files.sorted(by: { $0.key < $1.key }) {
        try writeIfChanged(contents, to: (directory as NSString).appendingPathComponent(file))
    }
    print("Wrote the migration step \"\(stepName)\" to \(directory). Review it and commit it with the model change.")
    return 0
}

func run() -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.contains("-h") || arguments.contains("--help") {
        print(usage, terminator: "")
        return 0
    }
    do {
        if arguments.first == "migrations" { return try runMigrations(Array(arguments.dropFirst())) }
        let options = try Options(arguments)
        let paths = try collectSwiftFiles(options.inputs, excluding: options.output)
        let output = Generator.generate(try readInputs(paths, root: options.root))
        for diagnostic in output.diagnostics {
            FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
        }
        guard let source = output.source else { return 1 }
        try writeIfChanged(source, to: options.output)
        return 0
    } catch let error as UsageError {
        FileHandle.standardError.write(Data("crud-gen: error: \(error.message)\n\n\(usage)".utf8))
        return 2
    } catch let error as FileError {
        FileHandle.standardError.write(Data("crud-gen: error: \(error.message)\n".utf8))
        return 2
    } catch {
        FileHandle.standardError.write(Data("crud-gen: error: \(error)\n".utf8))
        return 2
    }
}

exit(run())

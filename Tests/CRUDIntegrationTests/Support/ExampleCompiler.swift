import Foundation
import Testing

/// What an example of the docs takes as given without showing it, and how it is checked.
struct ExampleSetting: Sendable {
    enum Kind: Sendable {
        /// Swift code, type-checked against the built library with its models run through crud-gen.
        case program
        /// The same, against the example server's build, which has Hummingbird.
        case hummingbird
        /// A package manifest, type-checked against the toolchain's PackageDescription.
        case manifest
        /// Code the generator writes: every line stands, in order, in crud-gen's output for `models`.
        case generated
    }

    var kind = Kind.program
    /// The models the example uses without declaring them, run through crud-gen as the plugin would.
    var models = ""
    /// Declarations before the example: the values it names (imports go to the top).
    var given = ""
    /// Examples of the same page it continues, by key, declared before it.
    var uses: [String] = []
    /// Code before and after an example that is part of a statement, on its first line and after it.
    var before = "", after = ""
    /// The example shows alternatives, each starting `let db =`: each gets a scope of its own.
    var alternatives = false
    /// It needs the MySQL trait.
    var mysql = false
    /// It needs the ServiceLifecycle trait.
    var serviceLifecycle = false
}

/// Type-checks the docs' examples with `swiftc`, as a user's code using the built modules.
enum ExampleCompiler {
    /// The test build's folder (`.build/debug`), where the modules and crud-gen are.
    static let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    static let root = DocumentationExample.root

    /// Two compilers at a time: each is a process of a few hundred megabytes and keeps a core busy.
    static let compilers = DispatchSemaphore(value: 2)

    static func swiftc() throws -> String {
        let candidates = ["/usr/bin/swiftc", "/opt/swift/usr/bin/swiftc"]
        if let found = candidates.first(where: FileManager.default.isExecutableFile) { return found }
        return try Spawn.run(["/usr/bin/env", "which", "swiftc"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The flags that find the library's modules and the C modules they import.
    static func libraryFlags() -> [String] {
        ["-I", build.appending(path: "Modules").path] + cModuleFlags
    }

    /// The flags that find the C modules the library's modules import.
    static let cModuleFlags: [String] = ["CEventPoll", "CSQLite", "CLibPQ", "CMariaDB"].flatMap { module in
        ["-I", root.appending(path: "Sources/\(module)").path]
    } + systemLibraryFlags

    /// Where the client libraries' headers are (`/usr/include/postgresql`), as SwiftPM finds them.
    static let systemLibraryFlags: [String] = ["sqlite3", "libpq", "libmariadb"].flatMap { library in
        let flags = (try? Spawn.run(["/usr/bin/env", "pkg-config", "--cflags-only-I", library])) ?? ""
        return flags.split(whereSeparator: \.isWhitespace).flatMap { ["-Xcc", String($0)] }
    }

    /// The flags that find the example server's modules (Hummingbird, SwiftNIO and the library) and
    /// the C modules of its dependencies, from the folder of its built binary.
    static func exampleFlags(binary: String) throws -> [String] {
        let binFolder = URL(fileURLWithPath: binary).deletingLastPathComponent()
        let checkouts = binFolder.deletingLastPathComponent().deletingLastPathComponent().appending(path: "checkouts")
        var flags = ["-I", binFolder.appending(path: "Modules").path] + cModuleFlags
        for folder in try FileManager.default.contentsOfDirectory(atPath: binFolder.path) where folder.hasSuffix(".build") {
            let map = binFolder.appending(path: "\(folder)/module.modulemap").path
            if FileManager.default.fileExists(atPath: map) { flags += ["-Xcc", "-fmodule-map-file=\(map)"] }
        }
        let walker = FileManager.default.enumerator(atPath: checkouts.path)
        while let path = walker?.nextObject() as? String {
            guard path.contains("/Sources/"), !path.contains("/Tests/"), !path.contains("/Benchmarks/") else { continue }
            if path.hasSuffix("/module.modulemap") {
                flags += ["-Xcc", "-fmodule-map-file=\(checkouts.appending(path: path).path)"]
            } else if path.hasSuffix("/include") {
                flags += ["-Xcc", "-I\(checkouts.appending(path: path).path)"]
            }
        }
        return flags
    }

    /// The source of the program that holds `example` as written, in the place the page gives
    /// (`#sourceLocation`), so that a diagnostic names the page's line.
    static func program(_ example: DocumentationExample, _ setting: ExampleSetting, uses: [DocumentationExample]) -> String {
        var imports: [String] = ["import CRUD", "import Foundation"]
        func body(_ lines: [String]) -> [String] {
            lines.map { line in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("import ") {
                    if !imports.contains(trimmed) { imports.append(trimmed) }
                    return ""
                }
                return DocumentationExample.withoutPlaceholders(line)
            }
        }
        let given = body(setting.given.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        var parts: [String] = [given.joined(separator: "\n")]
        for used in uses {
            parts.append("#sourceLocation(file: \"\(used.page)\", line: \(used.line))")
            parts += body(used.code)
            parts.append("#sourceLocation()")
        }
        var code = body(example.code)
        if setting.alternatives {
            var opened = false
            for index in code.indices where code[index].hasPrefix("let db =") {
                code[index] = (opened ? "}; do { " : "do { ") + code[index]
                opened = true
            }
            if opened { code.append("}") }
        }
        if let first = code.indices.first { code[first] = setting.before + code[first] }
        parts.append("#sourceLocation(file: \"\(example.page)\", line: \(example.line))")
        parts += code
        parts.append("#sourceLocation()")
        parts.append(setting.after)
        return (imports + parts).joined(separator: "\n") + "\n"
    }

    /// Checks `example`: nil when it stands, else what is wrong, with the compiler's diagnostics.
    static func check(_ example: DocumentationExample, _ setting: ExampleSetting, uses: [DocumentationExample],
                      exampleServer: String? = nil) throws -> String? {
        compilers.wait()
        defer { compilers.signal() }
        let folder = FileManager.default.temporaryDirectory.appending(path: "crud-integration-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let swiftc = try swiftc()
        let models = folder.appending(path: "Models.swift")
        try ("import CRUD\nimport Foundation\n" + setting.models).write(to: models, atomically: true, encoding: .utf8)
        let generated = folder.appending(path: "Generated.swift")

        switch setting.kind {
        case .manifest:
            let manifest = folder.appending(path: "Package.swift")
            var code = example.code.map(DocumentationExample.withoutPlaceholders)
            if let first = code.indices.first { code[first] = setting.before + code[first] }
            try ("import PackageDescription\n#sourceLocation(file: \"\(example.page)\", line: \(example.line))\n"
                + code.joined(separator: "\n") + "\n\(setting.after)\n").write(to: manifest, atomically: true, encoding: .utf8)
            let api = URL(fileURLWithPath: swiftc).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
                .appending(path: "lib/swift/pm/ManifestAPI").path
            return failure(of: [swiftc, "-typecheck", "-swift-version", "6", "-package-description-version", "6.2", "-I", api, manifest.path])
        case .generated:
            try Spawn.run([build.appending(path: "crud-gen").path, "--output", generated.path, models.path])
            let output = try String(contentsOf: generated, encoding: .utf8).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            var remaining = output[...]
            for (offset, line) in example.code.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, !trimmed.hasPrefix("// ") else { continue }
                guard let found = remaining.firstIndex(of: trimmed) else {
                    return "\(example.page):\(example.line + offset): crud-gen does not write this line here: \(trimmed)\n"
                        + "crud-gen wrote:\n\(output.joined(separator: "\n"))"
                }
                remaining = output[(found + 1)...]
            }
            return failure(of: [swiftc, "-typecheck", "-swift-version", "6", models.path, generated.path] + libraryFlags())
        case .program, .hummingbird:
            let main = folder.appending(path: "main.swift")
            try program(example, setting, uses: uses).write(to: main, atomically: true, encoding: .utf8)
            try Spawn.run([build.appending(path: "crud-gen").path, "--output", generated.path, "--root", folder.path, main.path, models.path])
            let flags = try exampleServer.map { try exampleFlags(binary: $0) } ?? libraryFlags()
            return failure(of: [swiftc, "-typecheck", "-swift-version", "6", main.path, models.path, generated.path] + flags)
        }
    }

    /// What `command` printed when it failed, or nil when it succeeded.
    static func failure(of command: [String]) -> String? {
        do {
            try Spawn.run(command)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

import Foundation
import Testing

/// Builds a small package that applies CRUDPlugin, with `swift build`, as a user would. The fixture
/// lives under this package's `.build/` so repeated runs build incrementally.
@Suite("CRUDPlugin in a real build", .serialized)
struct PluginBuildTests {
    static let fixture = Paths.packageRoot.appending(path: ".build/crud-plugin-fixture")
    static let models = fixture.appending(path: "Sources/App/Models.swift")

    /// The Package.swift of the README's "Using the plugin" section, verbatim: its path dependency
    /// `../CRUD` is this package, through a link named `CRUD` beside the fixture.
    static func readmeManifest() throws -> String {
        let readme = try String(contentsOf: Paths.packageRoot.appending(path: "README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Using the plugin"), "README.md has no \"Using the plugin\" section")
        let opening = try #require(readme.range(of: "```swift\n// swift-tools-version", range: section.upperBound ..< readme.endIndex))
        let body = readme.index(opening.lowerBound, offsetBy: "```swift\n".count)
        let closing = try #require(readme.range(of: "\n```", range: body ..< readme.endIndex))
        return String(readme[body ..< closing.lowerBound]) + "\n"
    }

    static func linkPackage() throws {
        let link = fixture.deletingLastPathComponent().appending(path: "CRUD")
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) != Paths.packageRoot.path {
            try? FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: Paths.packageRoot.path)
        }
    }

    static let goodModels = """
        import CRUD

        struct Rider: CRUDModel {
            let id: Int
            var name: String
        }

        """

    /// One `Database` shared by detached tasks and dispatch queues, as a Swift 6 program would.
    static let main = """
        import CRUD
        import CRUDSQLite
        import Dispatch
        import Foundation

        CRUDLogging.queryLogDestinations = [.file(FileManager.default.temporaryDirectory.appending(path: "crud-fixture.log").path)]
        let path = FileManager.default.temporaryDirectory.appending(path: "crud-fixture-\\(UUID().uuidString).sqlite").path
        let db = Database(configuration: try SQLiteDatabaseConfiguration(path))
        try db.create(Rider.self)
        try db.table(Rider.self).insert(Rider(id: 1, name: "Ann"))
        let finished = DispatchGroup()
        for worker in 0 ..< 4 {
            finished.enter()
            Task.detached {
                defer { finished.leave() }
                for row in 0 ..< 25 { _ = try? await db.table(Rider.self).insert(Rider(id: 100 + worker * 25 + row, name: "task")) }
            }
            DispatchQueue.global().async(group: finished) {
                for row in 0 ..< 25 { _ = try? db.table(Rider.self).insert(Rider(id: 200 + worker * 25 + row, name: "queue")) }
            }
        }
        finished.wait()
        print(Rider.crudSchema.columns.map(\\.name).joined(separator: ","), try db.table(Rider.self).count())
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }

        """

    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if (try? String(contentsOf: url, encoding: .utf8)) != text {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    /// Builds `package` with `swift build`, waiting on a thread of its own: a build takes a minute,
    /// and Swift's cooperative pool, which runs the tests, has a thread per core.
    static func swiftBuild(_ package: URL = fixture) async throws -> ProcessResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try swiftBuildBlocking(package) }) }.start()
        }
    }

    private static func swiftBuildBlocking(_ package: URL) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "XCTestConfigurationFilePath")
        // Without the cached build plan: it would miss a source file added to CRUD since the last run.
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["swift", "build", "--disable-build-manifest-caching", "--package-path", package.path], environment: environment)
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

    /// Whether a build's output has a warning of CRUD's or of the fixture's. swift-distributed-tracing
    /// 1.7.3 ships a CMakeLists.txt that its manifest does not declare, which SwiftPM warns about on
    /// every build of a package depending on it: that one is not ours to fix.
    static func ownWarnings(_ output: String) -> Bool {
        output.split(separator: "\n").contains { line in
            line.contains("warning:") && !line.contains("warning: 'swift-distributed-tracing': found 1 file(s) which are unhandled")
        }
    }

    static func modificationDate(_ url: URL) throws -> Date {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
    }

    @Test("build, rebuild without changes, edit a model, break a model", .timeLimit(.minutes(15)))
    func pluginBuild() async throws {
        try Self.linkPackage()
        try Self.write(try Self.readmeManifest(), to: Self.fixture.appending(path: "Package.swift"))
        try Self.write(Self.main, to: Self.fixture.appending(path: "Sources/App/main.swift"))
        try Self.write(Self.goodModels, to: Self.models)

        let first = try await Self.swiftBuild()
        #expect(first.status == 0, "\(first.output)")
        let generated = try Self.generatedFile()
        #expect(try String(contentsOf: generated, encoding: .utf8).contains("static var name: CRUDColumn<Rider, String> { CRUDColumn(1, \"name\") }"))
        let built = try Self.modificationDate(generated)
        let ran = try runProcess(Self.fixture.appending(path: ".build/debug/App"), [])
        #expect(ran.output.split(separator: "\n").first == "id,name 201", "\(ran.output)\(ran.error)")
        #expect(!Self.ownWarnings(first.output), "a Swift 6 package sharing one Database across tasks and queues builds without warnings:\n\(first.output)")
        let log = FileManager.default.temporaryDirectory.appending(path: "crud-fixture.log")
        defer { try? FileManager.default.removeItem(at: log) }
        #expect((try? String(contentsOf: log, encoding: .utf8))?.hasSuffix("[query] SELECT COUNT(*) FROM (SELECT 1 FROM \"Rider\" AS t0) AS crud_count\n") == true,
                "the query log is flushed when the app exits")

        let second = try await Self.swiftBuild()
        #expect(second.status == 0, "\(second.output)")
        #expect(try Self.modificationDate(generated) == built, "an unchanged build must not rewrite the generated file")
        #expect(!second.output.contains("Compiling App"), "an unchanged build must recompile nothing:\n\(second.output)")

        try Self.write(Self.goodModels.replacingOccurrences(of: "var name: String", with: "var name: String\n    var wheels: Int?"), to: Self.models)
        let third = try await Self.swiftBuild()
        #expect(third.status == 0, "\(third.output)")
        #expect(try String(contentsOf: generated, encoding: .utf8).contains("static var wheels: CRUDColumn<Rider, Int?> { CRUDColumn(2, \"wheels\") }"))

        try Self.write(Self.goodModels + "\nfinal class Garage: CRUDModel {\n    let id: Int\n}\n", to: Self.models)
        let broken = try await Self.swiftBuild()
        #expect(broken.status != 0)
        #expect(broken.output.contains("\(Self.models.path):8:7: error: 'Garage' is a class; CRUDModel works on structs"), "\(broken.output)")

        try Self.write(Self.goodModels, to: Self.models)
    }

    /// Runs `swift package … crud-migrations` in `package` with `arguments`.
    static func crudMigrations(_ package: URL, _ arguments: [String]) async throws -> ProcessResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    var environment = ProcessInfo.processInfo.environment
                    environment.removeValue(forKey: "XCTestConfigurationFilePath")
                    let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                                ["swift", "package", "--package-path", package.path, "--allow-writing-to-package-directory",
                                                 "crud-migrations"] + arguments, environment: environment)
                    return ProcessResult(status: result.status, output: result.output + result.error, error: "")
                })
            }.start()
        }
    }

    @Test("crud-migrations: the first step, the build's warning at the changed line once the models move past it, the next step",
          .timeLimit(.minutes(20)))
    func migrationsCommand() async throws {
        try Self.linkPackage()
        let package = Self.fixture.deletingLastPathComponent().appending(path: "crud-migrations-fixture")
        let models = package.appending(path: "Sources/App/Models.swift")
        let migrations = package.appending(path: "Sources/App/Migrations")
        try? FileManager.default.removeItem(at: migrations)
        try Self.write(try Self.readmeManifest(), to: package.appending(path: "Package.swift"))
        try Self.write(Self.goodModels, to: models)
        try Self.write("print(\"not migrated yet\")\n", to: package.appending(path: "Sources/App/main.swift"))

        let first = try await Self.crudMigrations(package, ["generate", "initial"])
        #expect(first.status == 0, "\(first.output)")
        #expect(FileManager.default.fileExists(atPath: migrations.appending(path: "Migration0001.swift").path))
        #expect(try String(contentsOf: migrations.appending(path: "SchemaHistory.swift"), encoding: .utf8).contains("migration0001,"))
        #expect(try String(contentsOf: package.appending(path: "AppSchema.md"), encoding: .utf8).contains("int64 id PK"))

        // The app applies the generated steps and checks the database against the last one.
        try Self.write("""
            import CRUD
            import CRUDSQLite
            import Foundation

            let path = FileManager.default.temporaryDirectory.appending(path: "crud-migrations-\\(UUID().uuidString).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            let db = Database(configuration: try SQLiteDatabaseConfiguration(path))
            var migrator = CRUDMigrator<SQLiteDatabaseConfiguration>()
            migrator.register(SchemaHistory.migrations)
            print(try migrator.migrate(db).joined(separator: ","))
            try db.checkSchema(migrator.schema!)
            try db.checkSchema([Rider.self])

            """, to: package.appending(path: "Sources/App/main.swift"))
        let built = try await Self.swiftBuild(package)
        #expect(built.status == 0, "\(built.output)")
        #expect(!Self.ownWarnings(built.output), "\(built.output)")
        #expect(try runProcess(package.appending(path: ".build/debug/App"), []).output == "0001 initial\n")

        try Self.write(Self.goodModels.replacingOccurrences(of: "var name: String", with: "var name: String\n    var wheels: Int?"), to: models)
        let behind = try await Self.swiftBuild(package)
        #expect(behind.status == 0, "\(behind.output)")
        #expect(behind.output.contains("\(models.path):6:9: warning: 'Rider' gained the column 'wheels' with no migration; "
            + "run `swift package --allow-writing-to-package-directory crud-migrations generate <name>`"), "\(behind.output)")

        let second = try await Self.crudMigrations(package, ["generate", "wheels"])
        #expect(second.status == 0, "\(second.output)")
        let caughtUp = try await Self.swiftBuild(package)
        #expect(caughtUp.status == 0, "\(caughtUp.output)")
        #expect(!Self.ownWarnings(caughtUp.output), "\(caughtUp.output)")
        #expect(try runProcess(package.appending(path: ".build/debug/App"), []).output == "0001 initial,0002 wheels\n")

        let again = try await Self.crudMigrations(package, ["generate", "nothing"])
        #expect(again.status == 0 && again.output.contains("nothing to generate"), "\(again.output)")
        #expect(!FileManager.default.fileExists(atPath: migrations.appending(path: "Migration0003.swift").path))
    }

    @Test("the plugin applied to a C target is a build error that says where it belongs", .timeLimit(.minutes(10)))
    func nonSwiftTarget() async throws {
        try Self.linkPackage()
        let package = Self.fixture.deletingLastPathComponent().appending(path: "crud-plugin-c-fixture")
        try Self.write("""
            // swift-tools-version:6.2
            import PackageDescription

            let package = Package(
                name: "CFixture",
                dependencies: [.package(path: "../CRUD")],
                targets: [.target(name: "CLib", plugins: [.plugin(name: "CRUDPlugin", package: "CRUD")])]
            )

            """, to: package.appending(path: "Package.swift"))
        try Self.write("int clib_answer(void);\n", to: package.appending(path: "Sources/CLib/include/clib.h"))
        try Self.write("#include \"clib.h\"\nint clib_answer(void) { return 42; }\n", to: package.appending(path: "Sources/CLib/clib.c"))
        let build = try await Self.swiftBuild(package)
        #expect(build.status != 0)
        #expect(build.output.contains("\"CLib\" is not a Swift source target; apply the plugin to the Swift target whose structs are marked CRUDModel"),
                "\(build.output)")
    }
}

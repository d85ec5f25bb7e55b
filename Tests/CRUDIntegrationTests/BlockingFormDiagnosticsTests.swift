import Foundation
import Testing

/// Async code gets the async form of every operation that has both, and is told at compile time
/// when it would block: code using the built CRUD module is type-checked by `swiftc` as a user's
/// would be.
@Suite("blocking forms in async code")
struct BlockingFormDiagnosticsTests {
    /// What `swiftc -typecheck` says of `source`, a program's main.swift, and whether it failed.
    static func typecheck(_ source: String) throws -> (output: String, failed: Bool) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "crud-integration-diagnostics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "main.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let command = [try ExampleCompiler.swiftc(), "-typecheck", "-swift-version", "6", file.path] + ExampleCompiler.libraryFlags()
        do {
            return (try Spawn.run(command), false)
        } catch let failure as SpawnFailure {
            return (failure.description, true)
        }
    }

    /// The diagnostics of `output` at `line`, as "error: …" or "warning: …".
    static func diagnostics(_ output: String, line: Int) -> [String] {
        output.split(separator: "\n").compactMap { text in
            guard text.hasPrefix("main.swift:\(line):") || text.contains("/main.swift:\(line):") else { return nil }
            return text.firstRange(of: "error: ").map { String(text[$0.lowerBound...]) }
                ?? text.firstRange(of: "warning: ").map { String(text[$0.lowerBound...]) }
        }
    }

    @Test("in an async function, `try await` runs the async form, and a blocking call without await does not compile")
    func asyncFunctions() async throws {
        // swiftc runs off Swift's cooperative pool, which the suites beside this one share.
        let (output, failed) = try await offCooperativePool { try Self.typecheck("""
            import CRUD

            func serve(_ db: AnyDatabase, _ migrator: CRUDMigrator<AnyDatabaseConfiguration>, _ schema: CRUDSchema) async throws {
                try await migrator.migrate(db)
                try await db.checkSchema(schema)
                try await db.sql("SELECT 1")
                try db.ping()
                try await db.shutdown()
            }

            func blocking(_ db: AnyDatabase) throws {
                try db.ping()
                try db.shutdown()
            }
            """) }
        #expect(failed, "\(output)")
        // Lines 4 to 6 and 8 chose the async forms (a blocking one would be "unavailable from
        // asynchronous contexts"); line 7, which forgot `await`, got the async form too and must
        // say so; the synchronous function keeps the blocking forms without a word.
        for line in [4, 5, 6, 8, 12, 13] {
            #expect(Self.diagnostics(output, line: line).isEmpty, "line \(line): \(output)")
        }
        #expect(Self.diagnostics(output, line: 7) == ["error: expression is 'async' but is not marked with 'await'"], "\(output)")
    }

    @Test("top-level code, which Swift gives the blocking form even with await, is warned that it blocks and where the async form is chosen")
    func topLevelCode() async throws {
        let (output, failed) = try await offCooperativePool { try Self.typecheck("""
            import CRUD

            let db = try AnyDatabase(url: "sqlite::memory:", drivers: [])
            try await db.ping()
            """) }
        #expect(!failed, "\(output)")
        let warnings = Self.diagnostics(output, line: 4)
        #expect(warnings.contains { $0.contains("'ping' is unavailable from asynchronous contexts") && $0.contains("call it from an async function") },
                "\(output)")
    }
}

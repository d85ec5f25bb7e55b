import Foundation
import Testing

/// The dialect owns every spelling that differs between databases: outside the dialect and the
/// renderer, the runtime's sources hold none of these in their SQL.
@Suite("dialect spellings")
struct DialectSpellingTests {
    @Test("no transaction verb, row lock, LIKE escape, IF [NOT] EXISTS or identifier quoting outside the dialect and the renderer")
    func spellingsLiveInTheDialect() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/CRUD")
        let owners: Set<String> = ["Connection/CRUDDialect.swift", "SQL/SQLBuilder.swift"]
        let spellings = ["\"COMMIT", "\"ROLLBACK", "SAVEPOINT", "FOR UPDATE", "ESCAPE '", "IF NOT EXISTS", "IF EXISTS",
                         "replacingOccurrences(of: \"\\\"\""]
        var found: [String] = []
        var files = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift"), !owners.contains(path) else { continue }
            files += 1
            let text = try String(contentsOf: sources.appending(path: path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                for spelling in spellings where code.contains(spelling) { found.append("\(path):\(number + 1): \(spelling)") }
            }
        }
        #expect(files > 50, "the scan read the runtime's sources: \(files)")
        #expect(found.isEmpty, "\(found)")
    }

    @Test("only the executor (Execution/) touches sessions: the chain, the database API, migrations and the schema check go through its entries")
    func onlyTheExecutorTouchesSessions() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/CRUD")
        let session = try Regex(#"\bsession\b|CRUDSession\b|withSession|withOwnedStatement|\.lease\("#)
        var found: [String] = []
        var files = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift"), !path.hasPrefix("Execution/") else { continue }
            files += 1
            let text = try String(contentsOf: sources.appending(path: path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), code.contains(session) else { continue }
                found.append("\(path):\(number + 1): \(code)")
            }
        }
        #expect(files > 50, "the scan read the runtime's sources: \(files)")
        #expect(found.isEmpty, "\(found)")
    }

    @Test("no SQL statement is written outside the renderer and the dialect: the chain, the executor and migrations ask SQLBuilder")
    func statementsComeFromTheRenderer() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/CRUD")
        let owners: Set<String> = ["Connection/CRUDDialect.swift", "SQL/SQLBuilder.swift"]
        // A string that starts a statement or a clause; reading SQL (splitting a definition) is not writing it.
        let statement = try Regex(#""(SELECT|INSERT INTO|UPDATE|DELETE FROM|ALTER TABLE|CREATE|DROP|CONSTRAINT|CAST\()[ (]|" (RETURNING|GROUP BY|WHERE|FROM|ON CONFLICT) "#)
        var found: [String] = []
        var files = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift"), !owners.contains(path) else { continue }
            files += 1
            let text = try String(contentsOf: sources.appending(path: path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), !code.contains("separatedBy:"), code.contains(statement) else { continue }
                found.append("\(path):\(number + 1): \(code)")
            }
        }
        #expect(files > 50, "the scan read the runtime's sources: \(files)")
        #expect(found.isEmpty, "\(found)")
    }
}

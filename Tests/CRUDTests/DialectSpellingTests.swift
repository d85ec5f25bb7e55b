import Foundation
import Testing

/// The dialect owns every spelling that differs between databases, the renderer writes every
/// statement, and only the executor touches sessions: scans of the runtime's sources.
@Suite("dialect spellings")
struct DialectSpellingTests {
    /// The code lines (comments left out) of the runtime's files, but those `skipping` names, that
    /// `matches` accepts, as `path:line: code`; and how many files were read.
    func scan(skipping: (String) -> Bool, _ matches: (String) -> Bool) throws -> (files: Int, found: [String]) {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/CRUD")
        var found: [String] = []
        var files = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift"), !skipping(path) else { continue }
            files += 1
            let text = try String(contentsOf: sources.appending(path: path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if !code.hasPrefix("//"), matches(code) { found.append("\(path):\(number + 1): \(code)") }
            }
        }
        return (files, found)
    }

    /// The renderer's and the dialect's files.
    static let owners: Set<String> = ["Connection/CRUDDialect.swift", "SQL/SQLBuilder.swift"]

    @Test("no transaction verb, row lock, LIKE escape, IF [NOT] EXISTS or identifier quoting outside the dialect and the renderer")
    func spellingsLiveInTheDialect() throws {
        let spellings = ["\"COMMIT", "\"ROLLBACK", "SAVEPOINT", "FOR UPDATE", "ESCAPE '", "IF NOT EXISTS", "IF EXISTS",
                         "replacingOccurrences(of: \"\\\"\""]
        let (files, found) = try scan(skipping: Self.owners.contains) { code in spellings.contains { code.contains($0) } }
        #expect(files > 50, "the scan read the runtime's sources: \(files)")
        #expect(found.isEmpty, "\(found)")
    }

    @Test("no SQL statement is written outside the renderer and the dialect: the chain, the executor and migrations ask SQLBuilder")
    func statementsComeFromTheRenderer() throws {
        // A string that starts a statement or a clause; reading SQL (splitting a definition) is not writing it.
        let statement = try Regex(#""(SELECT|INSERT INTO|UPDATE|DELETE FROM|ALTER TABLE|CREATE|DROP|CONSTRAINT|CAST\()[ (]|" (RETURNING|GROUP BY|WHERE|FROM|ON CONFLICT) "#)
        let (files, found) = try scan(skipping: Self.owners.contains) { code in !code.contains("separatedBy:") && code.contains(statement) }
        #expect(files > 50, "the scan read the runtime's sources: \(files)")
        #expect(found.isEmpty, "\(found)")
        #expect("try steps.run(\"ALTER TABLE \\(name) RENAME TO x\")".contains(statement), "the pattern finds a statement written in place")
    }

    @Test("every statement is described as a plan and rendered in one place: no code outside SQL/ makes a SQLBuilder")
    func statementsAreRenderedFromPlans() throws {
        // A constraint's definition (a clause of a CREATE TABLE plan) is the one fragment written
        // outside SQL/: the model's constraint list renders it, through the renderer's helpers.
        let fragments: Set<String> = ["Schema/Constraint.swift"]
        let builder = try Regex(#"SQLBuilder\(|\bbuilder\.[a-zA-Z]+\(|\.insert\(into:"#)
        let (files, found) = try scan(skipping: { $0.hasPrefix("SQL/") || fragments.contains($0) }) { $0.contains(builder) }
        #expect(files > 50, "the scan read the runtime's sources: \(files)")
        #expect(found.isEmpty, "\(found)")
        #expect("var builder = SQLBuilder(dialect: executor.dialect)".contains(builder), "the pattern finds a statement rendered in place")
    }

    @Test("only the executor (Execution/) touches sessions: the chain, the database API, migrations and the schema check go through its entries")
    func onlyTheExecutorTouchesSessions() throws {
        let session = try Regex(#"\bsession\b|CRUDSession\b|withSession|withOwnedStatement|\.lease\("#)
        let (files, found) = try scan(skipping: { $0.hasPrefix("Execution/") }) { $0.contains(session) }
        #expect(files > 50, "the scan read the runtime's sources: \(files)")
        #expect(found.isEmpty, "\(found)")
        #expect("try executor.withSession(.read) { session in".contains(session), "the pattern finds a session used in place")
    }
}

@_spi(CRUDDriver) import CRUD
import CRUDSQLite
import Foundation
import Testing

/// Every error a public operation throws is logged once and handed to `didFail` once, whatever the
/// operation and its form. Logging is global: these run with the logging suite, one at a time.
extension LoggingTests {
    /// Counts what one failing call reports and logs.
    final class FailureCount: Sendable {
        let reports = Collector<String>()
        let logged = Collector<String>()

        /// Where the library's error lines go while the calls run.
        var destination: CRUDLogDestination {
            .custom { [logged] event in if event.type == .error { logged.append(event.msg) } }
        }

        /// Expects `body` to throw, and to have reported exactly one error and logged it once.
        func expectOne(_ label: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
            for attempt in 1 ... 3 {
                CRUDLogging.errorLogDestinations = [destination]
                let before = (reports.items.count, logged.items.count)
                #expect(throws: (any Error).self, "\(label) fails", sourceLocation: sourceLocation) { try body() }
                if loggingWasTurnedOff(attempt) { continue }
                return check(label, since: before, sourceLocation)
            }
        }

        func expectOne(_ label: String, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
            for attempt in 1 ... 3 {
                CRUDLogging.errorLogDestinations = [destination]
                let before = (reports.items.count, logged.items.count)
                await #expect(throws: (any Error).self, "\(label) fails", sourceLocation: sourceLocation) { try await body() }
                if loggingWasTurnedOff(attempt) { continue }
                return check(label, since: before, sourceLocation)
            }
        }

        /// Whether another test's set-up (the suites of every test target share the process, and
        /// logging is global) turned logging off during the call: the failed call changed nothing,
        /// so it runs again.
        private func loggingWasTurnedOff(_ attempt: Int) -> Bool {
            CRUDLogging.flush()
            return CRUDLogging.errorLogDestinations.isEmpty && attempt < 3
        }

        private func check(_ label: String, since before: (reports: Int, lines: Int), _ sourceLocation: SourceLocation) {
            let reported = Array(reports.items.dropFirst(before.reports))
            #expect(reported.count == 1, "\(label): reported \(reported.count) times: \(reported)", sourceLocation: sourceLocation)
            guard let error = reported.first else { return }
            let lines = logged.items.dropFirst(before.lines).filter { $0 == error }.count
            #expect(lines == 1, "\(label): logged \(lines) times: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("each public operation, sync and async, logs and reports a failure exactly once")
    func everyOperationReportsOnce() async throws {
        let boundary = FailureCount()
        defer { CRUDLogging.errorLogDestinations = [] }
        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        db.didFail = { boundary.reports.append(String(describing: $0)) }
        try synchronousOperations(db, boundary)
        try await asynchronousOperations(db, boundary)
    }

    func synchronousOperations(_ db: Database<SQLiteDatabaseConfiguration>, _ boundary: FailureCount) throws {
        try db.create(Boundary.self)
        let rows = db.table(Boundary.self)
        try rows.insert([Boundary(id: 1, name: "a", n: 1), Boundary(id: 2, name: "b", n: 2)])
        let taken = Boundary(id: 1, name: "a", n: 1), clash = Boundary(id: 2, name: "a", n: 9)
        let wrong = rows.where(\Boundary.twice == 2)
        let one = rows.where(\Boundary.id == 2)

        boundary.expectOne("create with a key that is no column") { try db.create(Boundary.self, primaryKey: \Boundary.twice) }
        boundary.expectOne("index") { try rows.index(\.twice) }
        boundary.expectOne("sql") { try db.sql("SELEKT 1") }
        boundary.expectOne("sql reading rows") { _ = try db.sql("SELEKT 1", Boundary.self) }
        boundary.expectOne("insert one") { try rows.insert(taken) }
        boundary.expectOne("insert many") { try rows.insert([taken]) }
        boundary.expectOne("insert one, setKeys") { try rows.insert(taken, setKeys: \.id, \.name) }
        boundary.expectOne("insert many, setKeys") { try rows.insert([taken], setKeys: \.id, \.name) }
        boundary.expectOne("insert one, ignoreKeys") { try rows.insert(taken, ignoreKeys: \.n) }
        boundary.expectOne("insert many, ignoreKeys") { try rows.insert([taken], ignoreKeys: \.n) }
        boundary.expectOne("update") { try one.update(clash) }
        boundary.expectOne("update, setKeys") { try one.update(clash, setKeys: \.name) }
        boundary.expectOne("update, ignoreKeys") { try one.update(clash, ignoreKeys: \.id) }
        boundary.expectOne("delete") { try wrong.delete() }
        boundary.expectOne("upsert one") { try rows.upsert(clash, onConflict: \.id) }
        boundary.expectOne("upsert many") { try rows.upsert([clash], onConflict: \.id) }
        boundary.expectOne("returning a column, insert one") { _ = try rows.returning(\.n, insert: taken) }
        boundary.expectOne("returning a column, insert many") { _ = try rows.returning(\.n, insert: [taken]) }
        boundary.expectOne("returning a column, insert, setKeys") { _ = try rows.returning(\.n, insert: taken, setKeys: \.id, \.name) }
        boundary.expectOne("returning a column, insert, ignoreKeys") { _ = try rows.returning(\.n, insert: taken, ignoreKeys: \.n) }
        boundary.expectOne("returning rows, insert one") { _ = try rows.returning(insert: taken) }
        boundary.expectOne("returning rows, insert many") { _ = try rows.returning(insert: [taken]) }
        boundary.expectOne("returning rows, insert, setKeys") { _ = try rows.returning(insert: taken, setKeys: \.id, \.name) }
        boundary.expectOne("returning rows, insert many, setKeys") { _ = try rows.returning(insert: [taken], setKeys: \.id, \.name) }
        boundary.expectOne("returning rows, insert, ignoreKeys") { _ = try rows.returning(insert: taken, ignoreKeys: \.n) }
        boundary.expectOne("returning rows, insert many, ignoreKeys") { _ = try rows.returning(insert: [taken], ignoreKeys: \.n) }
        boundary.expectOne("returning, update") { _ = try one.returning(\.n, update: clash) }
        boundary.expectOne("returning, update, setKeys") { _ = try one.returning(\.n, update: clash, setKeys: \.name) }
        boundary.expectOne("returning, update, ignoreKeys") { _ = try one.returning(\.n, update: clash, ignoreKeys: \.id) }
        boundary.expectOne("select") { _ = try wrong.select() }
        boundary.expectOne("forEach") { try wrong.forEach { _ in } }
        boundary.expectOne("cursor") { _ = try wrong.cursor() }
        boundary.expectOne("first") { _ = try wrong.first() }
        boundary.expectOne("count") { _ = try wrong.count() }
        boundary.expectOne("page") { _ = try wrong.page(1, size: 2) }
        boundary.expectOne("page of size 0") { _ = try rows.page(1, size: 0) }
        boundary.expectOne("exists") { _ = try wrong.exists() }
        boundary.expectOne("sum") { _ = try wrong.sum(\.n) }
        boundary.expectOne("min") { _ = try wrong.min(\.n) }
        boundary.expectOne("max") { _ = try wrong.max(\.n) }
        boundary.expectOne("avg") { _ = try wrong.avg(\.n) }
        boundary.expectOne("count, grouped") { _ = try rows.count(groupedBy: \.twice) }
        boundary.expectOne("sum, grouped") { _ = try rows.sum(\.n, groupedBy: \.twice) }
        boundary.expectOne("alterTable of a missing table") { try db.alterTable(Course.self) }
        boundary.expectOne("alterTable with a value that does not convert") { try db.alterTable(BoundaryMisread.self) }
        boundary.expectOne("checkSchema of a missing table") { try db.checkSchema([Course.self]) }
        boundary.expectOne("join on a computed property") { _ = try db.table(BoundaryParent.self).join(\.rows, on: \.id, equals: \.twice) }
        boundary.expectOne("prepared, matching a computed property") { _ = try rows.prepared(matching: \.twice) }
        boundary.expectOne("prepared, first") { _ = try rows.order(by: \.twice).prepared(matching: \.id).first(1) }
        let misread = db.table(BoundaryMisread.self)
        boundary.expectOne("cursor, next") { _ = try misread.cursor().next() }
        boundary.expectOne("cursor, forEachRemaining") { try misread.cursor().forEachRemaining { _ in } }
        boundary.expectOne("withConnection, its body failing") { try db.withConnection { _ in throw CRUDSQLExeError("the body failed") } }
        boundary.expectOne("commitTransaction on the pooled database") { try db.commitTransaction() }
        boundary.expectOne("rollbackTransaction on the pooled database") { try db.rollbackTransaction() }
        boundary.expectOne("lastInsertId after other statements") {
            let child = try db.createChild()
            let inserted = try child.table(Boundary.self).insert(Boundary(id: 3, name: "c", n: 3))
            _ = try child.table(Boundary.self).count()
            _ = try inserted.lastInsertId()
        }
        boundary.expectOne("a transaction rethrowing its body's failure") { try db.transaction { _ = try rows.insert(taken) } }
        boundary.expectOne("beginTransaction on the pooled database") { try db.beginTransaction() }
        var twice = CRUDMigrator<SQLiteDatabaseConfiguration>()
        twice.register("once") { _ in }
        twice.register("once") { _ in }
        boundary.expectOne("migrate") { try twice.migrate(db) }
        boundary.expectOne("shutdown inside a transaction") { try db.transaction { try db.shutdown() } }
        let closed = try shutDownDatabase(boundary)
        boundary.expectOne("ping after shutdown") { try closed.ping() }
        // A migrations table that is not the library's: its rows do not read.
        try db.sql("CREATE TABLE crud_migrations (position TEXT, name TEXT, applied_at TEXT)")
        try db.sql("INSERT INTO crud_migrations VALUES ('first', 'one', 'today')")
        boundary.expectOne("appliedMigrations") { _ = try twice.appliedMigrations(db) }
    }

    /// A database that was shut down, reporting to `boundary`.
    func shutDownDatabase(_ boundary: FailureCount) throws -> Database<SQLiteDatabaseConfiguration> {
        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        db.didFail = { boundary.reports.append(String(describing: $0)) }
        try db.shutdown()
        return db
    }

    func asynchronousOperations(_ db: Database<SQLiteDatabaseConfiguration>, _ boundary: FailureCount) async throws {
        let rows = db.table(Boundary.self)
        let taken = Boundary(id: 1, name: "a", n: 1), clash = Boundary(id: 2, name: "a", n: 9)
        let wrong = rows.where(\Boundary.twice == 2)
        let one = rows.where(\Boundary.id == 2)

        await boundary.expectOne("async create") { try await db.create(Boundary.self, primaryKey: \Boundary.twice) }
        await boundary.expectOne("async index") { try await rows.index(\.twice) }
        await boundary.expectOne("async sql") { try await db.sql("SELEKT 1") }
        await boundary.expectOne("async sql reading rows") { _ = try await db.sql("SELEKT 1", Boundary.self) }
        await boundary.expectOne("async insert one") { try await rows.insert(taken) }
        await boundary.expectOne("async insert many") { try await rows.insert([taken]) }
        await boundary.expectOne("async insert one, setKeys") { try await rows.insert(taken, setKeys: \.id, \.name) }
        await boundary.expectOne("async insert many, setKeys") { try await rows.insert([taken], setKeys: \.id, \.name) }
        await boundary.expectOne("async insert one, ignoreKeys") { try await rows.insert(taken, ignoreKeys: \.n) }
        await boundary.expectOne("async insert many, ignoreKeys") { try await rows.insert([taken], ignoreKeys: \.n) }
        await boundary.expectOne("async update") { try await one.update(clash) }
        await boundary.expectOne("async update, setKeys") { try await one.update(clash, setKeys: \.name) }
        await boundary.expectOne("async update, ignoreKeys") { try await one.update(clash, ignoreKeys: \.id) }
        await boundary.expectOne("async delete") { try await wrong.delete() }
        await boundary.expectOne("async upsert one") { try await rows.upsert(clash, onConflict: \.id) }
        await boundary.expectOne("async upsert many") { try await rows.upsert([clash], onConflict: \.id) }
        await boundary.expectOne("async returning a column, insert") { _ = try await rows.returning(\.n, insert: taken) }
        await boundary.expectOne("async returning a column, insert, setKeys") { _ = try await rows.returning(\.n, insert: taken, setKeys: \.id, \.name) }
        await boundary.expectOne("async returning a column, insert, ignoreKeys") { _ = try await rows.returning(\.n, insert: taken, ignoreKeys: \.n) }
        await boundary.expectOne("async returning rows, insert") { _ = try await rows.returning(insert: taken) }
        await boundary.expectOne("async returning rows, insert many") { _ = try await rows.returning(insert: [taken]) }
        await boundary.expectOne("async returning rows, insert, setKeys") { _ = try await rows.returning(insert: taken, setKeys: \.id, \.name) }
        await boundary.expectOne("async returning rows, insert, ignoreKeys") { _ = try await rows.returning(insert: taken, ignoreKeys: \.n) }
        await boundary.expectOne("async returning, update") { _ = try await one.returning(\.n, update: clash) }
        await boundary.expectOne("async returning, update, setKeys") { _ = try await one.returning(\.n, update: clash, setKeys: \.name) }
        await boundary.expectOne("async returning, update, ignoreKeys") { _ = try await one.returning(\.n, update: clash, ignoreKeys: \.id) }
        await boundary.expectOne("async select") { _ = try await wrong.select() }
        await boundary.expectOne("async stream") { for try await _ in wrong.select() {} }
        await boundary.expectOne("async first") { _ = try await wrong.first() }
        await boundary.expectOne("async count") { _ = try await wrong.count() }
        await boundary.expectOne("async page") { _ = try await wrong.page(1, size: 2) }
        await boundary.expectOne("async exists") { _ = try await wrong.exists() }
        await boundary.expectOne("async sum") { _ = try await wrong.sum(\.n) }
        await boundary.expectOne("async min") { _ = try await wrong.min(\.n) }
        await boundary.expectOne("async max") { _ = try await wrong.max(\.n) }
        await boundary.expectOne("async avg") { _ = try await wrong.avg(\.n) }
        await boundary.expectOne("async count, grouped") { _ = try await rows.count(groupedBy: \.twice) }
        await boundary.expectOne("async sum, grouped") { _ = try await rows.sum(\.n, groupedBy: \.twice) }
        await boundary.expectOne("async transaction") { try await db.transaction { tx in _ = try await tx.table(Boundary.self).insert(taken) } }
        var twice = CRUDMigrator<SQLiteDatabaseConfiguration>()
        twice.register("once") { _ in }
        twice.register("once") { _ in }
        await boundary.expectOne("async migrate") { try await twice.migrate(db) }
        await boundary.expectOne("async checkSchema of a missing table") { try await db.checkSchema([Course.self]) }
        await boundary.expectOne("async checkSchema against a frozen schema") {
            try await db.checkSchema(CRUDSchema([CRUDSchemaTable("Missing", columns: [CRUDSchemaColumn("id", .integer(bits: 64, signed: true))])]))
        }
        await boundary.expectOne("async shutdown inside a transaction") { try await db.transaction { tx in try await tx.shutdown() } }
        let closed = try shutDownDatabase(boundary)
        await boundary.expectOne("async ping after shutdown") { try await closed.ping() }
    }

    @Test("the boundary is the executor's: no public operation writes its own, and the test above calls every one")
    func everyOperationHasTheBoundary() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appending(path: "Sources/CRUD")
        let calls = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        var unbounded: [String] = []
        var untested: Set<String> = []
        var checked = 0
        for folder in ["Query", "Database", "Migration", "Schema", "Execution"] {
            let directory = sources.appending(path: folder)
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appending(path: file), encoding: .utf8)
                for operation in PublicOperations.throwing(in: text) {
                    checked += 1
                    if folder != "Execution", ["reporting", "report("].contains(where: { operation.body.contains($0) }) {
                        unbounded.append("\(folder)/\(file) \(operation.name)")
                    }
                    // By name: the sync calls as written, the async ones by their labels.
                    let called = operation.isAsync ? ["\"async \(operation.name)"] : [".\(operation.name)(", ".\(operation.name) {"]
                    if !called.contains(where: calls.contains) {
                        untested.insert(operation.name + (operation.isAsync ? " async" : ""))
                    }
                }
            }
        }
        #expect(checked > 100, "the scan found the operations: \(checked)")
        #expect(unbounded.isEmpty, "public operations that report their own errors, where an executor entry should: \(unbounded)")
        #expect(untested.isEmpty, "public throwing operations that everyOperationReportsOnce does not call: \(untested.sorted())")
    }
}

/// The public throwing functions of a Swift source, found by their signatures: name, whether
/// async, and body.
enum PublicOperations {
    static func throwing(in text: String) -> [(name: String, isAsync: Bool, body: String)] {
        let characters = Array(text)
        var found: [(String, Bool, String)] = []
        var searchFrom = text.startIndex
        while let range = text.range(of: "public func ", range: searchFrom ..< text.endIndex) {
            searchFrom = range.upperBound
            let start = text.distance(from: text.startIndex, to: range.upperBound)
            let name = String(characters[start...].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            // The signature runs to the first `{` outside brackets.
            var index = start, depth = 0
            while index < characters.count {
                let character = characters[index]
                if "([<".contains(character) { depth += 1 }
                if ")]>".contains(character) { depth -= 1 }
                if character == "{" && depth <= 0 { break }
                index += 1
            }
            let signature = String(characters[start ..< index])
            let afterParameters = signature.range(of: ")", options: .backwards).map { String(signature[$0.upperBound...]) } ?? ""
            guard afterParameters.contains("throws"), !afterParameters.contains("rethrows") else { continue }
            var end = index, braces = 0
            repeat {
                if characters[end] == "{" { braces += 1 }
                if characters[end] == "}" { braces -= 1 }
                end += 1
            } while braces > 0 && end < characters.count
            found.append((name, afterParameters.contains("async"), String(characters[index ..< end])))
        }
        return found
    }
}

import CRUD
import Foundation
import Logging
import Testing

/// Each public operation's blocking and awaiting forms are one operation run by two runners: they
/// run the same statements (the query log a task's logger gets, transaction control included) and
/// give the same results, on every backend. A form that decided anything on its own (batching, a
/// transaction around it, a statement prepared per row) shows here as a difference.
@Suite("an operation's blocking and awaiting forms run the same statements and give the same results")
struct OperationParityTests {
    /// What one form of an operation did: its result and the table's rows after it, described, and
    /// the statements it ran.
    struct Run: Equatable, CustomStringConvertible {
        let result: String
        let statements: [String]

        var description: String { "\(result)\n    " + statements.joined(separator: "\n    ") }
    }

    static let chores = (1 ... 12).map { Chore(id: $0, owner: $0 % 3, title: "chore \($0)", done: $0 % 2 == 0, priority: $0 % 4) }

    /// The statements a connection runs as it opens, which either form may or may not have caused.
    static func opens(_ statement: String) -> Bool {
        ["SET ", "PRAGMA ", "SELECT @@", "SELECT count(*) FROM sqlite_master"].contains { statement.hasPrefix($0) }
    }

    /// A logger that gets every statement run for the task it is bound to.
    static func logger(_ lines: Collector<String>) -> Logger {
        var logger = Logger(label: "parity") { _ in CollectingLogHandler(collector: lines) }
        logger.logLevel = .debug
        return logger
    }

    static func statements(_ lines: Collector<String>) -> [String] {
        CRUDLogging.flush()
        return lines.items.map { $0.hasPrefix("debug: ") ? String($0.dropFirst(7)) : $0 }.filter { !opens($0) }
    }

    /// The blocking form run with its statements captured.
    static func blocking(_ body: () throws -> String) throws -> Run {
        let lines = Collector<String>()
        let result = try CRUDLogging.withLogger(logger(lines)) { try body() }
        return Run(result: result, statements: statements(lines))
    }

    /// The awaiting form run with its statements captured.
    static func awaiting(_ body: () async throws -> String) async throws -> Run {
        let lines = Collector<String>()
        let result = try await CRUDLogging.withLogger(logger(lines)) { try await body() }
        return Run(result: result, statements: statements(lines))
    }

    /// Runs both forms of a read on the same rows and compares them.
    func compare(_ name: String, _ blockingForm: () throws -> String, _ awaitingForm: () async throws -> String) async throws {
        let blocking = try Self.blocking(blockingForm)
        let awaiting = try await Self.awaiting(awaitingForm)
        #expect(!blocking.statements.isEmpty, "\(name): the blocking form logged no statement")
        #expect(blocking == awaiting, "\(name):\n  blocking: \(blocking)\n  awaiting: \(awaiting)")
    }

    @Test("reads: select, first, count, exists, aggregates, groups, pages, prepared queries, raw SQL, ping; joined selects, firsts and pages, in a transaction too", arguments: Backend.all)
    func reads(_ backend: Backend) async throws {
        try await reads(backend.open())
    }

    func reads<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Chore.self, policy: .dropTable)
        try await db.table(Chore.self).insert(Self.chores)
        let table = db.table(Chore.self)
        let query = table.order(by: \.title).where(\Chore.priority > 0)
        let byOwner = try table.order(by: \.id).prepared(matching: \.owner)
        let raw = "SELECT id, owner, title, done, priority FROM \(db.quote("Chore")) WHERE owner = \(db.placeholder(0)) ORDER BY id"

        try await compare("select", { "\(try query.select().map(\.id))" }, { "\(try await query.select().map(\.id))" })
        try await compare("first", { "\(try query.first()?.id as Any)" }, { "\(try await query.first()?.id as Any)" })
        try await compare("first of none", { "\(try table.where(\Chore.id == 99).first() as Any)" },
                          { "\(try await table.where(\Chore.id == 99).first() as Any)" })
        try await compare("count", { "\(try query.count())" }, { "\(try await query.count())" })
        try await compare("exists", { "\(try query.exists())" }, { "\(try await query.exists())" })
        try await compare("sum", { "\(try query.sum(\.priority) as Any)" }, { "\(try await query.sum(\.priority) as Any)" })
        try await compare("min", { "\(try query.min(\.title) as Any)" }, { "\(try await query.min(\.title) as Any)" })
        try await compare("max", { "\(try query.max(\.id) as Any)" }, { "\(try await query.max(\.id) as Any)" })
        try await compare("avg", { "\(try query.avg(\.priority) as Any)" }, { "\(try await query.avg(\.priority) as Any)" })
        try await compare("count grouped", { "\(try query.count(groupedBy: \.owner).sorted { $0.key < $1.key })" },
                          { "\(try await query.count(groupedBy: \.owner).sorted { $0.key < $1.key })" })
        try await compare("sum grouped", { "\(try query.sum(\.priority, groupedBy: \.owner).sorted { $0.key < $1.key })" },
                          { "\(try await query.sum(\.priority, groupedBy: \.owner).sorted { $0.key < $1.key })" })
        try await compare("page", { let page = try query.page(2, size: 3); return "\(page.items.map(\.id)) \(page.total)" },
                          { let page = try await query.page(2, size: 3); return "\(page.items.map(\.id)) \(page.total)" })
        try await compare("prepared first", { "\(try byOwner.first(2)?.id as Any)" }, { "\(try await byOwner.first(2)?.id as Any)" })
        try await compare("prepared select", { "\(try byOwner.select(1).map(\.id))" }, { "\(try await byOwner.select(1).map(\.id))" })
        try await compare("raw rows", { "\(try db.sql(raw, bindings: [1], Chore.self).map(\.id))" },
                          { "\(try await db.sql(raw, bindings: [1], Chore.self).map(\.id))" })
        try await compare("raw", { try db.sql(raw, bindings: [2]); return "" }, { try await db.sql(raw, bindings: [2]); return "" })
        try await compare("ping", { try db.ping(); return "" }, { try await db.ping(); return "" })

        try await db.create(Shelf.self, policy: .dropTable)
        try await db.create(Book.self, policy: .dropTable)
        try await db.table(Shelf.self).insert((1 ... 4).map { Shelf(id: $0, bookCount: $0 % 3) })
        try await db.table(Book.self).insert((1 ... 9).map { Book(id: $0, shelfId: $0 % 3 + 1) })
        let shelves = try db.table(Shelf.self).order(by: \.id).join(\.books, on: \.id, equals: \.shelfId)
        func described(_ shelves: [Shelf]) -> String {
            "\(shelves.map { "\($0.id): \(($0.books ?? []).map(\.id).sorted())" })"
        }
        try await compare("joined select", { described(try shelves.select().rows) }, { described(try await shelves.select().rows) })
        try await compare("joined first", { described(try shelves.first().map { [$0] } ?? []) },
                          { described(try await shelves.first().map { [$0] } ?? []) })
        try await compare("joined page", { let page = try shelves.page(2, size: 2); return "\(described(page.items)) \(page.total)" },
                          { let page = try await shelves.page(2, size: 2); return "\(described(page.items)) \(page.total)" })
        try await compare("joined page in a transaction", {
            try db.transaction { let page = try shelves.page(1, size: 3); return "\(described(page.items)) \(page.total)" }
        }, {
            try await db.transaction { _ in let page = try await shelves.page(1, size: 3); return "\(described(page.items)) \(page.total)" }
        })
        try await db.shutdown()
    }

    @Test("writes: insert one, many and none, update, delete, upsert, returning; observed, with the ids observers need, or not",
          arguments: Backend.all, [false, true])
    func writes(_ backend: Backend, observed: Bool) async throws {
        try await writes(backend.open(), backend, observed: observed)
    }

    func writes<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend, observed: Bool) async throws {
        let db = Database(configuration: configuration)
        let table = db.table(Chore.self)
        let more = (100 ... 130).map { Chore(id: $0, owner: 1, title: "more \($0)", done: false, priority: 2) }
        let changed = Chore(id: 0, owner: 9, title: "changed", done: true, priority: 3)
        let upserted = [Chore(id: 3, owner: 7, title: "upserted", done: false, priority: 1),
                        Chore(id: 50, owner: 7, title: "new", done: false, priority: 1)]
        try await db.create(Chore.self, policy: .dropTable)
        let observation = observed ? db.observe(on: Chore.self) { _ in } : nil
        defer { observation?.cancel() }

        /// Runs both forms of a write, each on the same fresh rows, and compares what they did and
        /// the rows they left. A connection remembers the unique keys it read from the catalog (an
        /// upsert's), and which connection a form gets is the pool's choice: those reads are left
        /// out of what is compared.
        func compare(_ name: String, _ blockingForm: () throws -> String, _ awaitingForm: () async throws -> String) async throws {
            func fresh() async throws {
                try await table.delete()
                try await table.insert(Self.chores)
            }
            func rows() async throws -> String { "\(try await table.order(by: \.id).select().map { "\($0.id):\($0.title)" })" }
            func compared(_ run: Run) -> Run {
                Run(result: run.result, statements: run.statements.filter { statement in
                    !["pragma_index_list", "FROM pg_index", "information_schema.STATISTICS"].contains { statement.contains($0) }
                })
            }
            try await fresh()
            let blocking = compared(try Self.blocking(blockingForm))
            let blockingRows = try await rows()
            try await fresh()
            let awaiting = compared(try await Self.awaiting(awaitingForm))
            let awaitingRows = try await rows()
            #expect(blocking == awaiting, "\(name):\n  blocking: \(blocking)\n  awaiting: \(awaiting)")
            #expect(blockingRows == awaitingRows, "\(name): the rows each left")
        }

        try await compare("insert one", { try table.insert(more[0]); return "" }, { try await table.insert(more[0]); return "" })
        try await compare("insert many", { try table.insert(more); return "" }, { try await table.insert(more); return "" })
        try await compare("insert none", { try table.insert([Chore]()); return "" }, { try await table.insert([Chore]()); return "" })
        try await compare("update", { "\(try table.where(\Chore.owner == 1).update(changed, setKeys: \.title).changedRows)" },
                          { "\(try await table.where(\Chore.owner == 1).update(changed, setKeys: \.title).changedRows)" })
        try await compare("delete", { "\(try table.where(\Chore.done == true).delete().changedRows)" },
                          { "\(try await table.where(\Chore.done == true).delete().changedRows)" })
        try await compare("upsert", { "\(try table.upsert(upserted, onConflict: \.id))" }, { "\(try await table.upsert(upserted, onConflict: \.id))" })
        try await compare("returning insert", { "\(try table.returning(\.id, insert: Array(more.prefix(3))))" },
                          { "\(try await table.returning(\.id, insert: Array(more.prefix(3))))" })
        // MariaDB has no UPDATE … RETURNING; the rows an UPDATE returns come in no set order.
        if backend != .mysql {
            try await compare("returning update", { "\(try table.where(\Chore.owner == 2).returning(\.id, update: changed, setKeys: \.title).sorted())" },
                              { "\(try await table.where(\Chore.owner == 2).returning(\.id, update: changed, setKeys: \.title).sorted())" })
        }
        try await db.shutdown()
    }
}

@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

/// The query log shows every statement the library runs, its catalog reads included. Logging is
/// global: these run with the logging suite, one at a time.
extension LoggingTests {
    @Test("the query log shows what opening a connection runs: SQLite's pragmas, MySQL's session settings", arguments: Backend.all)
    func openingStatementsAreLogged(_ backend: Backend) throws {
        let queries = Collector<String>()
        CRUDLogging.queryLogDestinations = [.custom { queries.append($0.msg) }]
        defer { CRUDLogging.queryLogDestinations = [] }
        // Opened with the log on: the configuration opens its first connection. Other suites log
        // meanwhile, so this one's statement is marked, and the connection is asked whether its
        // opening statements were taken.
        let probe = "SELECT 1 AS opening_probe"
        func query<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
            let db = Database(configuration: configuration)
            try db.sql(probe)
            try db.withConnection { #expect($0.takeOpeningStatements().isEmpty, "the session took what opening ran") }
        }
        try query(backend.open())
        CRUDLogging.flush()
        let logged = queries.items
        let opening: [String] = switch backend {
        case .sqlite: ["SELECT count(*) FROM sqlite_master", "PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON"]
        // libpq's connection options set the session up, with no statement.
        case .postgres: []
        case .mysql: ["SET SESSION time_zone = '+00:00'", "SET NAMES utf8mb4", "SELECT @@max_allowed_packet"]
        }
        for statement in opening {
            #expect(logged.contains { $0.contains(statement) }, "\(statement) in \(logged)")
        }
        let first = try #require(logged.firstIndex { $0.contains(probe) })
        #expect(opening.allSatisfy { statement in logged[..<first].contains { $0.contains(statement) } },
                "the opening statements come before the first the caller runs: \(logged)")
    }

    @Test("the query log shows the catalog reads of create(.reconcileTable), upsert, lastInsertId, alterTable and migrate", arguments: Backend.all)
    func catalogReadsAreLogged(_ backend: Backend) throws { try catalogReadsAreLogged(backend.open(), backend) }

    func catalogReadsAreLogged<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let queries = Collector<String>()
        CRUDLogging.queryLogDestinations = [.custom { queries.append($0.msg) }]
        defer { CRUDLogging.queryLogDestinations = [] }
        let db = Database(configuration: configuration)
        // What each driver reads the catalog with: a table's columns, its unique keys, and what
        // alterTable reads besides (SQLite rebuilds the table; the servers alter it in place).
        let (columns, keys, altering): (String, String, [String]) = switch backend {
        case .sqlite: ("pragma_table_info", "pragma_index_list",
                       ["FROM sqlite_master WHERE type = 'table'", "PRAGMA foreign_keys", "pragma_index_info", "pragma_foreign_key_check"])
        case .postgres: ("FROM pg_attribute", "FROM pg_index", ["FROM pg_constraint"])
        case .mysql: ("information_schema.COLUMNS", "information_schema.STATISTICS", ["information_schema.TABLE_CONSTRAINTS"])
        }

        /// The statements `body` logs.
        func logged(_ body: () throws -> Void) throws -> [String] {
            CRUDLogging.flush()
            let before = queries.items.count
            try body()
            CRUDLogging.flush()
            return Array(queries.items.dropFirst(before))
        }

        try db.create(NoteV1.self)
        let reconciled = try logged { try db.create(NoteV2.self, policy: .reconcileTable) }
        #expect(reconciled.contains { $0.contains(columns) }, "the table's columns: \(reconciled)")
        #expect(reconciled.contains { $0.contains("ALTER TABLE \(db.quote("Note")) ADD COLUMN \(db.quote("author"))") }, "\(reconciled)")

        // SQLite asks its handle for the last id; the servers run a statement, which the log shows.
        var id: Int?
        let notes = [NoteV2(id: nil, text: "b", author: nil), NoteV2(id: nil, text: "c", author: nil)]
        let idRead = try logged { id = try backend.insertId(on: db) { try db.table(NoteV2.self).insert(notes, ignoreKeys: \.id).lastInsertId() } }
        #expect(id == 2)
        switch backend {
        case .sqlite: break
        case .postgres: #expect(idRead.contains { $0.contains("SELECT lastval()") }, "\(idRead)")
        case .mysql: #expect(idRead.contains { $0.contains("SELECT LAST_INSERT_ID()") }, "\(idRead)")
        }

        let upserted = try logged { try db.table(NoteV2.self).upsert(NoteV2(id: 1, text: "a", author: nil), onConflict: \.id) }
        #expect(upserted.contains { $0.contains(keys) }, "the table's unique keys: \(upserted)")

        try db.table(NoteV2.self).index(\.author)
        let altered = try logged { try db.alterTable(NoteV3.self) }
        for read in [columns] + altering {
            #expect(altered.contains { $0.contains(read) }, "\(read) in \(altered)")
        }

        var migrator = CRUDMigrator<C>()
        migrator.register("courses") { try $0.create(Course.self) }
        let migrated = try logged { try migrator.migrate(db) }
        #expect(migrated.contains { $0.contains(columns) }, "the migrations table's columns: \(migrated)")
    }
}

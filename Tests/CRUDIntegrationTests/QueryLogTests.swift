import CRUD
import CRUDSQLite
import Foundation
import Testing

/// The query log shows every statement the library runs, its catalog reads included. Logging is
/// global: these run with the logging suite, one at a time.
extension LoggingTests {
    @Test("the query log shows the catalog reads of create(.reconcileTable), upsert, alterTable and migrate")
    func catalogReadsAreLogged() throws {
        let queries = Collector<String>()
        CRUDLogging.queryLogDestinations = [.custom { queries.append($0.msg) }]
        defer { CRUDLogging.queryLogDestinations = [] }
        let db = Database(configuration: try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))

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
        #expect(reconciled.contains { $0.contains("pragma_table_info") }, "the table's columns: \(reconciled)")
        #expect(reconciled.contains { $0.contains("ALTER TABLE \"Note\" ADD COLUMN \"author\"") }, "\(reconciled)")

        let upserted = try logged { try db.table(NoteV2.self).upsert(NoteV2(id: 1, text: "a", author: nil), onConflict: \.id) }
        #expect(upserted.contains { $0.contains("pragma_index_list") }, "the table's unique keys: \(upserted)")

        try db.table(NoteV2.self).index(\.author)
        let altered = try logged { try db.alterTable(NoteV3.self) }
        for read in ["pragma_table_info", "FROM sqlite_master WHERE type = 'table'", "PRAGMA foreign_keys", "pragma_index_info",
                     "pragma_foreign_key_check"] {
            #expect(altered.contains { $0.contains(read) }, "\(read) in \(altered)")
        }

        var migrator = CRUDMigrator<SQLiteDatabaseConfiguration>()
        migrator.register("courses") { try $0.create(Course.self) }
        let migrated = try logged { try migrator.migrate(db) }
        #expect(migrated.contains { $0.contains("pragma_table_info") }, "the migrations table's columns: \(migrated)")
    }
}

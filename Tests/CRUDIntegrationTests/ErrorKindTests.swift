import CRUD
#if MySQL
@testable import CRUDMySQL
#endif
@testable import CRUDPostgres
@testable import CRUDSQLite
#if MySQL
import CMariaDB
#endif
import CSQLite
import Foundation
import Testing

/// `CRUDSQLExeError.kind`, the same on every backend: produced for real where one connection can
/// produce it, and each driver's table of codes checked entry by entry.
@Suite("error kinds")
struct ErrorKindTests {
    @Test("SQL that does not parse, a missing table and a missing column are .syntaxOrSchema", arguments: Backend.all)
    func syntaxOrSchema(_ backend: Backend) throws { try syntaxOrSchema(backend.open()) }

    func syntaxOrSchema<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Rider.self)
        for sql in ["SELEC 1", "SELECT * FROM \(db.quote("Nowhere"))", "SELECT \(db.quote("nothing")) FROM \(db.quote("Rider"))"] {
            let error = #expect(throws: CRUDSQLExeError.self, "\(sql)") { try db.sql(sql) }
            #expect(error?.kind == .syntaxOrSchema, "\(sql): \(String(describing: error))")
            #expect(error?.code != nil, "the native code is kept")
        }
    }

    @Test("a write in a read-only transaction is .readOnly, and the transaction's reads go on (SQLite: query_only)",
          arguments: Backend.all.filter { $0 != .mysql })
    func readOnly(_ backend: Backend) throws { try readOnly(backend.open(), backend) }

    func readOnly<C: DatabaseConfigurationProtocol>(_ configuration: C, _ backend: Backend) throws {
        let db = Database(configuration: configuration)
        try db.create(Rider.self)
        let failure: CRUDSQLExeError? = try db.transaction {
            try db.sql(backend == .sqlite ? "PRAGMA query_only = ON" : "SET TRANSACTION READ ONLY")
            defer { if backend == .sqlite { try? db.sql("PRAGMA query_only = OFF") } }
            do {
                // Nested (a savepoint): PostgreSQL aborts a transaction at its first failed statement.
                try db.transaction { try db.table(Rider.self).insert(Rider(id: 1, name: "Ann")) }
                return nil
            } catch let error as CRUDSQLExeError {
                #expect(try db.table(Rider.self).count() == 0, "the transaction still reads")
                return error
            }
        }
        #expect(failure?.kind == .readOnly, "\(String(describing: failure))")
        try db.table(Rider.self).insert(Rider(id: 2, name: "Bob"))
        #expect(try db.table(Rider.self).count() == 1, "the connection writes again after the read-only transaction")
    }

    @Test("SQLite's result codes map to kinds by number")
    func sqliteCodes() {
        let kinds: [(Int32, CRUDSQLExeError.Kind)] = [
            (SQLITE_CONSTRAINT | (8 << 8), .uniqueViolation), (SQLITE_CONSTRAINT | (6 << 8), .uniqueViolation),
            (SQLITE_CONSTRAINT | (3 << 8), .foreignKeyViolation), (SQLITE_CONSTRAINT | (5 << 8), .notNullViolation),
            (SQLITE_CONSTRAINT | (1 << 8), .checkViolation), (SQLITE_BUSY, .busyOrLocked), (SQLITE_LOCKED, .busyOrLocked),
            (SQLITE_BUSY | (1 << 8), .busyOrLocked), (SQLITE_BUSY | (2 << 8), .serializationFailure),
            (SQLITE_READONLY, .readOnly), (SQLITE_READONLY | (1 << 8), .readOnly), (SQLITE_ERROR, .syntaxOrSchema),
            (SQLITE_SCHEMA, .syntaxOrSchema), (SQLITE_IOERR, .other), (SQLITE_FULL, .other), (SQLITE_CORRUPT, .other),
        ]
        #expect(SQLiteFailure(status: SQLITE_CONSTRAINT | (7 << 8), message: "FOREIGN KEY constraint failed", sql: nil).kind
            == .foreignKeyViolation, "a RESTRICT foreign key, which SQLite reports as a trigger's")
        #expect(SQLiteFailure(status: SQLITE_CONSTRAINT | (7 << 8), message: "a user's RAISE(ABORT)", sql: nil).kind == .other)
        for (status, kind) in kinds {
            #expect(SQLiteFailure(status: status, message: "", sql: nil).kind == kind, "SQLite code \(status)")
        }
    }

    @Test("PostgreSQL's SQLSTATEs map to kinds, by code and by class")
    func postgresStates() {
        let kinds: [(String?, CRUDSQLExeError.Kind)] = [
            ("23505", .uniqueViolation), ("23503", .foreignKeyViolation), ("23502", .notNullViolation), ("23514", .checkViolation),
            ("55P03", .busyOrLocked), ("25006", .readOnly), ("40001", .serializationFailure), ("40P01", .serializationFailure),
            ("57P01", .connectionLost), ("57P02", .connectionLost), ("57P03", .connectionLost), ("08006", .connectionLost), ("08001", .connectionLost), ("08P01", .other), ("42601", .syntaxOrSchema),
            ("42P01", .syntaxOrSchema), ("42703", .syntaxOrSchema), ("42883", .syntaxOrSchema), ("42P10", .syntaxOrSchema),
            ("42501", .other), ("22003", .other), ("53100", .other), (nil, .other),
        ]
        for (state, kind) in kinds {
            #expect(PostgresState.kind(of: state) == kind, "SQLSTATE \(state ?? "none")")
        }
    }

    #if MySQL
    @Test("MySQL's and MariaDB's error numbers map to kinds")
    func mysqlNumbers() {
        let kinds: [(Int32, CRUDSQLExeError.Kind)] = [
            (ER_DUP_ENTRY, .uniqueViolation), (ER_DUP_ENTRY_WITH_KEY_NAME, .uniqueViolation),
            (ER_NO_REFERENCED_ROW_2, .foreignKeyViolation), (ER_ROW_IS_REFERENCED_2, .foreignKeyViolation),
            (ER_BAD_NULL_ERROR, .notNullViolation), (ER_CONSTRAINT_FAILED, .checkViolation), (3819, .checkViolation),
            (ER_LOCK_WAIT_TIMEOUT, .busyOrLocked), (3572, .busyOrLocked), (ER_LOCK_DEADLOCK, .serializationFailure),
            (ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, .readOnly), (ER_OPTION_PREVENTS_STATEMENT, .readOnly),
            (ER_PARSE_ERROR, .syntaxOrSchema), (ER_NO_SUCH_TABLE, .syntaxOrSchema), (ER_BAD_FIELD_ERROR, .syntaxOrSchema),
            (ER_SP_DOES_NOT_EXIST, .syntaxOrSchema), (ER_SYNTAX_ERROR, .syntaxOrSchema), (ER_BAD_TABLE_ERROR, .syntaxOrSchema),
            (ER_BAD_DB_ERROR, .syntaxOrSchema), (ER_DUP_KEY, .uniqueViolation), (ER_NO_REFERENCED_ROW, .foreignKeyViolation),
            (ER_ROW_IS_REFERENCED, .foreignKeyViolation), (ER_NO_DEFAULT_FOR_FIELD, .notNullViolation),
            (CR_SERVER_GONE_ERROR, .connectionLost), (CR_SERVER_LOST, .connectionLost), (CR_CONNECTION_ERROR, .connectionLost),
            (CR_CONN_HOST_ERROR, .connectionLost), (ER_CONNECTION_KILLED, .connectionLost), (ER_SERVER_SHUTDOWN, .connectionLost),
            (ER_DATA_TOO_LONG, .other), (ER_WARN_DATA_OUT_OF_RANGE, .other),
        ]
        for (number, kind) in kinds {
            #expect(MySQLFailure(number: UInt32(number), message: "", sql: nil).kind == kind, "MySQL error \(number)")
        }
    }
    #endif
}

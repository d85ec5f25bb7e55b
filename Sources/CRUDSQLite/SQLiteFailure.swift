@_spi(CRUDDriver) import CRUD
import CSQLite
import Foundation

/// What SQLite tells of a failure: its kind by the (extended) result code, and for a constraint
/// violation the constraint or table its message names. SQLite names the table and columns of a
/// UNIQUE or NOT NULL violation and the constraint of a CHECK; of a FOREIGN KEY violation it says
/// nothing, so the table the statement writes stands in.
struct SQLiteFailure {
    let kind: CRUDSQLExeError.Kind
    let constraint: String?
    let table: String?

    // The extended codes, which Swift does not import (macros over SQLITE_CONSTRAINT).
    static let check = SQLITE_CONSTRAINT | (1 << 8)
    static let foreignKey = SQLITE_CONSTRAINT | (3 << 8)
    static let notNull = SQLITE_CONSTRAINT | (5 << 8)
    static let primaryKey = SQLITE_CONSTRAINT | (6 << 8)
    static let unique = SQLITE_CONSTRAINT | (8 << 8)
    /// What SQLite reports a RESTRICT foreign key with: its foreign keys run as trigger programs.
    static let trigger = SQLITE_CONSTRAINT | (7 << 8)
    /// SQLite's fixed text for a foreign key violation, which tells a RESTRICT apart from a user's
    /// trigger (`RAISE(ABORT, …)` with their own text) under the same code.
    static let foreignKeyText = "FOREIGN KEY constraint failed"
    /// A WAL read transaction that wrote after another connection committed: its snapshot is stale.
    static let busySnapshot = SQLITE_BUSY | (2 << 8)

    init(status: Int32, message: String, sql: String?) {
        let detail = message.split(separator: ":", maxSplits: 1).dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) }
        let status = status == Self.trigger && message == Self.foreignKeyText ? Self.foreignKey : status
        switch status {
        case Self.unique, Self.primaryKey:
            kind = .uniqueViolation
            constraint = nil
            table = detail.flatMap(Self.table(ofColumn:))
        case Self.notNull:
            kind = .notNullViolation
            constraint = nil
            table = detail.flatMap(Self.table(ofColumn:))
        case Self.check:
            kind = .checkViolation
            constraint = detail
            table = sql.flatMap(CRUDSQLExeError.tableWritten(by:))
        case Self.foreignKey:
            kind = .foreignKeyViolation
            constraint = nil
            table = sql.flatMap(CRUDSQLExeError.tableWritten(by:))
        default:
            kind = Self.kind(of: status)
            constraint = nil
            table = nil
        }
    }

    /// The kind of a failure that is not a constraint violation, by its result code.
    private static func kind(of status: Int32) -> CRUDSQLExeError.Kind {
        if status == busySnapshot { return .serializationFailure }
        // The primary code is the low byte of an extended one.
        switch status & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busyOrLocked
        case SQLITE_READONLY: return .readOnly
        // SQLITE_ERROR is what SQLite returns for SQL that does not parse or names what is not there.
        case SQLITE_ERROR, SQLITE_SCHEMA: return .syntaxOrSchema
        default: return .other
        }
    }

    /// `Bike` of `Bike.name, Bike.color`.
    private static func table(ofColumn detail: String) -> String? {
        detail.split(separator: ",").first?.split(separator: ".").first.map { String($0).trimmingCharacters(in: .whitespaces) }
    }
}

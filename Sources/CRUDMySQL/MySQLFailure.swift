#if MySQL
import CMariaDB
@_spi(CRUDDriver) import CRUD
import Foundation

/// What MySQL or MariaDB tells of a failure: its kind by the error number, and for a constraint
/// violation the constraint and table its message names (`… for key 'Cycle_color_key'`, `(\`db\`.\`Pet\`,
/// CONSTRAINT \`Pet_owner_fkey\` …)`).
struct MySQLFailure {
    let kind: CRUDSQLExeError.Kind
    let constraint: String?
    let table: String?

    /// MySQL 8's number for a failed CHECK (MariaDB's is `ER_CONSTRAINT_FAILED`).
    static let mysqlCheckViolated: UInt32 = 3819

    init(number: UInt32, message: String, sql: String?) {
        switch number {
        case UInt32(ER_DUP_ENTRY), UInt32(ER_DUP_KEY), UInt32(ER_DUP_ENTRY_WITH_KEY_NAME):
            kind = .uniqueViolation
            constraint = Self.quoted(after: "for key ", in: message).map { $0.split(separator: ".").last.map(String.init) ?? $0 }
            table = sql.flatMap(CRUDSQLExeError.tableWritten(by:))
        case UInt32(ER_ROW_IS_REFERENCED_2), UInt32(ER_NO_REFERENCED_ROW_2), UInt32(ER_ROW_IS_REFERENCED), UInt32(ER_NO_REFERENCED_ROW):
            kind = .foreignKeyViolation
            constraint = Self.quoted(after: "CONSTRAINT ", in: message)
            table = Self.table(in: message) ?? sql.flatMap(CRUDSQLExeError.tableWritten(by:))
        case UInt32(ER_BAD_NULL_ERROR), UInt32(ER_NO_DEFAULT_FOR_FIELD):
            kind = .notNullViolation
            constraint = nil
            table = sql.flatMap(CRUDSQLExeError.tableWritten(by:))
        case UInt32(ER_CONSTRAINT_FAILED), Self.mysqlCheckViolated:
            kind = .checkViolation
            constraint = Self.quoted(after: "CONSTRAINT ", in: message) ?? Self.quoted(after: "constraint ", in: message)
            table = Self.table(in: message) ?? sql.flatMap(CRUDSQLExeError.tableWritten(by:))
        default:
            kind = Self.kind(of: number)
            constraint = nil
            table = nil
        }
    }

    /// MySQL 8's number for `NOWAIT` finding a row locked (MariaDB reports a lock wait timeout).
    static let mysqlLockNowait: UInt32 = 3572

    /// The kind of a failure that is not a constraint violation, by its error number.
    private static func kind(of number: UInt32) -> CRUDSQLExeError.Kind {
        switch number {
        // ER_UNKNOWN_COM_ERROR is also what a Galera node outside the cluster's primary component
        // answers ("WSREP has not yet prepared node for application use"): the connection must go
        // to another node.
        case UInt32(CR_SERVER_GONE_ERROR), UInt32(CR_SERVER_LOST), UInt32(CR_CONNECTION_ERROR), UInt32(CR_CONN_HOST_ERROR),
             UInt32(ER_CONNECTION_KILLED), UInt32(ER_SERVER_SHUTDOWN), UInt32(ER_UNKNOWN_COM_ERROR):
            .connectionLost
        case UInt32(ER_LOCK_WAIT_TIMEOUT), mysqlLockNowait: .busyOrLocked
        case UInt32(ER_LOCK_DEADLOCK): .serializationFailure
        case UInt32(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION), UInt32(ER_OPTION_PREVENTS_STATEMENT): .readOnly
        case UInt32(ER_PARSE_ERROR), UInt32(ER_SYNTAX_ERROR), UInt32(ER_NO_SUCH_TABLE), UInt32(ER_BAD_FIELD_ERROR),
             UInt32(ER_BAD_TABLE_ERROR), UInt32(ER_SP_DOES_NOT_EXIST), UInt32(ER_BAD_DB_ERROR):
            .syntaxOrSchema
        default: .other
        }
    }

    /// The table of a `schema.table` the message names: in backticks, or in double quotes where the
    /// server's `sql_mode` has `ANSI_QUOTES`, which makes it quote names so.
    private static func table(in message: String) -> String? {
        quoted(after: "`.", in: message) ?? quoted(after: "\".", in: message)
    }

    /// The name in backticks, single or double quotes right after `marker`.
    private static func quoted(after marker: String, in message: String) -> String? {
        guard let start = message.range(of: marker)?.upperBound, start < message.endIndex else { return nil }
        let quote = message[start]
        guard "`'\"".contains(quote) else { return nil }
        let rest = message[message.index(after: start)...]
        guard let end = rest.firstIndex(of: quote) else { return nil }
        return String(rest[..<end])
    }
}
#endif

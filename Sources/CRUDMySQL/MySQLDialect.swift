#if MySQL
@_spi(CRUDDriver) import CRUD

/// MySQL's and MariaDB's SQL, in the server's own `sql_mode` for quoting and escaping: identifiers
/// in backticks, which parse in every mode (with or without `ANSI_QUOTES`), and nothing that depends
/// on whether a backslash escapes in a string literal.
public struct MySQLDialect: CRUDDialect {
    /// Whether the server is MariaDB rather than MySQL.
    public let isMariaDB: Bool
    /// The server's version as Connector/C reports it: 101106 for 10.11.6.
    public let version: Int

    /// The dialect of a MariaDB server (`isMariaDB`) or a MySQL one, of `version` (`major * 10000 +
    /// minor * 100 + patch`): what it can return from depends on both.
    public init(isMariaDB: Bool = true, version: Int = 100_500) {
        self.isMariaDB = isMariaDB
        self.version = version
    }

    public var name: String { isMariaDB ? "MariaDB" : "MySQL" }

    /// What both servers take, of every version this driver supports: for a configuration that
    /// chooses its dialect before any server answers: MySQL's (no `RETURNING`, no `CREATE INDEX IF
    /// NOT EXISTS`), which MariaDB takes too.
    public static let portable = MySQLDialect(isMariaDB: false, version: 0)

    /// MariaDB has `CREATE INDEX IF NOT EXISTS`; MySQL has not, and says 1061 (duplicate key name)
    /// for an index that exists.
    public var createIndexIfNotExists: Bool { isMariaDB }

    public func indexAlreadyExists(_ error: CRUDSQLExeError) -> Bool {
        error.code == "1061"
    }

    /// A named user lock, which waits up to a day for the migrator holding it (MariaDB takes no
    /// negative "forever"); schema changes commit at once on MySQL, so each step's transaction
    /// cannot serialize migrators.
    public var migrationLock: (lock: String, unlock: String?)? {
        ("SELECT GET_LOCK('crud_migrations', 86400)", "SELECT RELEASE_LOCK('crud_migrations')")
    }

    /// An identifier in backticks, inner backticks doubled: MySQL's own quoting, which needs no
    /// `ANSI_QUOTES`.
    public func quote(_ identifier: String) -> String {
        var quoted = "`"
        quoted.reserveCapacity(identifier.utf8.count + 2)
        for character in identifier {
            if character == "`" { quoted.append("`") }
            quoted.append(character)
        }
        quoted.append("`")
        return quoted
    }

    /// Text with a backslash is written as the pieces between its backslashes joined by
    /// `CHAR(92 USING utf8mb4)`, which is a backslash whether or not the session's `sql_mode` has
    /// `NO_BACKSLASH_ESCAPES`; other text in single quotes, inner ones doubled.
    public func stringLiteral(_ value: String) -> String {
        let pieces = value.split(separator: "\\", omittingEmptySubsequences: false).map { "'" + $0.replacing("'", with: "''") + "'" }
        return pieces.count == 1 ? pieces[0] : "CONCAT(" + pieces.joined(separator: ", CHAR(92 USING utf8mb4), ") + ")"
    }

    /// `CHAR(92)` is a backslash whether or not the session's `sql_mode` has `NO_BACKSLASH_ESCAPES`,
    /// where a literal `'\\'` would be one backslash in one mode and two in the other.
    public var likeEscapeClause: String { " ESCAPE CHAR(92)" }

    /// MySQL refuses names over 64 characters; counted in bytes here, which is never more.
    public var maxIdentifierBytes: Int? { 64 }

    /// InnoDB parses `SET DEFAULT` and then refuses the delete it should have handled (1451).
    public var supportsSetDefaultAction: Bool { false }

    /// MySQL drops an index with its table named, and a foreign key or a unique constraint by
    /// their own words; a check by `DROP CONSTRAINT` (MariaDB 10.2 and MySQL 8.0.19 on). A foreign
    /// key made the index it needed, named as it is, where the table had none: on MariaDB that index
    /// goes with it, so that the table is the one a new install makes (MySQL has no
    /// `DROP INDEX IF EXISTS`, and keeps it).
    public func dropIndex(_ quotedName: String, on quotedTable: String) -> String {
        "DROP INDEX \(quotedName) ON \(quotedTable)"
    }

    public func dropConstraint(_ quotedName: String, _ constraint: CRUDSchemaConstraint) -> String {
        switch constraint {
        case .foreignKey: "DROP FOREIGN KEY \(quotedName)" + (isMariaDB ? ", DROP INDEX IF EXISTS \(quotedName)" : "")
        case .unique: "DROP INDEX \(quotedName)"
        case .check, .typedCheck: "DROP CONSTRAINT \(quotedName)"
        }
    }

    /// MariaDB has `DELETE … RETURNING`, and `INSERT … RETURNING` from 10.5 on; MySQL has neither, and
    /// neither has `UPDATE … RETURNING`.
    public func canReturn(from kind: CRUDChangeKind) -> Bool {
        switch kind {
        case .insert: isMariaDB && version >= 100_500
        case .delete: isMariaDB
        case .update: false
        }
    }

    /// MariaDB has no `FOR SHARE`; both servers take `LOCK IN SHARE MODE`.
    public func rowLock(_ lock: CRUDRowLock) -> String {
        switch lock {
        case .update: " FOR UPDATE"
        case .share: " LOCK IN SHARE MODE"
        }
    }

    /// Every schema change commits the open transaction.
    public var transactionalDDL: Bool { false }

    /// `lock_wait_timeout` bounds the wait for a metadata lock (a year by default).
    public func lockWaitLimit(seconds: Int) -> String? {
        "SET SESSION lock_wait_timeout = \(max(1, seconds))"
    }

    /// `LONGTEXT`/`LONGBLOB` hold what `TEXT`/`BLOB` hold elsewhere (up to 4 GB); `DATETIME(6)` in
    /// UTC keeps microseconds and no zone; a UUID is `BINARY(16)`: 16 bytes, compared and indexed
    /// as bytes, where `CHAR(36)` would take 36 and compare as text. `JSON` is MySQL's JSON type,
    /// and in MariaDB `LONGTEXT` with a `json_valid` check: invalid JSON is refused on both.
    public func columnType(_ type: CRUDColumnType) -> String {
        switch type {
        case let .integer(bits, signed):
            let name = bits <= 8 ? "TINYINT" : bits <= 16 ? "SMALLINT" : bits <= 32 ? "INT" : "BIGINT"
            return signed ? name : name + " UNSIGNED"
        case let .real(bits): return bits <= 32 ? "FLOAT" : "DOUBLE"
        case .bool: return "BOOLEAN"
        case .text: return "LONGTEXT"
        case .blob: return "LONGBLOB"
        case .date: return "DATETIME(6)"
        case .uuid: return "BINARY(16)"
        case .json: return "JSON"
        }
    }

    /// An integer key is assigned by `AUTO_INCREMENT`; a text key is `VARCHAR(255)`, since MySQL
    /// keys no `LONGTEXT`.
    public func primaryKeyColumnType(_ type: CRUDColumnType) -> String {
        switch type {
        case .integer: columnType(type) + " AUTO_INCREMENT"
        case .text: "VARCHAR(255)"
        default: columnType(type)
        }
    }

    /// Connector/C's placeholders are positional: the engine binds in the order it writes them.
    public func placeholder(_ position: Int) -> String {
        "?"
    }

    /// MySQL needs a `LIMIT` before an `OFFSET`: the largest one stands for none.
    public func limitClause(max: String?, skip: String?) -> String {
        "LIMIT \(max ?? "18446744073709551615")" + (skip.map { " OFFSET \($0)" } ?? "")
    }

    public func beginTransaction(_ mode: TransactionMode) throws -> String {
        switch mode {
        case .default: return "START TRANSACTION"
        case let .isolation(level, readOnly):
            return "SET TRANSACTION ISOLATION LEVEL \(level.rawValue); START TRANSACTION" + (readOnly ? " READ ONLY" : "")
        case .deferred, .immediate, .exclusive:
            throw CRUDSQLGenError("transaction(\(mode)): \(name) has no such locking mode (it is SQLite's); "
                + "use .default or .isolation(_:readOnly:)")
        }
    }

    public func zeroValue(_ type: CRUDColumnType) -> String {
        switch type {
        case .integer, .real, .bool: "0"
        case .text: "''"
        case .blob: "X''"
        case .date: "'1970-01-01 00:00:00'"
        case .uuid: "X'00000000000000000000000000000000'"
        case .json: "'null'"
        }
    }

    /// `length` counts characters (`CHAR_LENGTH`; MySQL's `LENGTH` counts bytes).
    public func function(_ function: CRUDSQLFunction, _ argument: String) -> String {
        switch function {
        case .lower, .caseInsensitive: "lower(\(argument))"
        case .upper: "upper(\(argument))"
        case .length: "CHAR_LENGTH(\(argument))"
        case .trim: "trim(\(argument))"
        }
    }

    public func rowsPerInsert(columns: Int) -> Int {
        max(1, min(1_000, 65_535 / max(columns, 1)))
    }

    /// None: `ON DUPLICATE KEY UPDATE` takes no conflict target but fires on any unique key, and its
    /// affected-row counts cannot tell a kept row from an inserted one; the engine inserts, and
    /// updates a row whose insert collided with the target's key.
    public func upsertClause(target: [String], update: [String]) -> String? {
        nil
    }

    /// From `information_schema.STATISTICS`, under the names a duplicate-key error gives them
    /// (`PRIMARY` for the primary key).
    @_spi(CRUDDriver) public func uniqueKeysQuery(ofTable table: String) -> (sql: String, parameters: [CRUDDatabaseValue]) {
        ("""
        SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX
        """, [.text(table)])
    }

    /// MySQL sorts NULLs first ascending and last descending, as the other backends are made to.
    public func nullOrdering(descending: Bool) -> String {
        ""
    }

    public func castType(_ type: CRUDColumnType) -> String {
        switch type {
        case let .integer(_, signed): signed ? "SIGNED" : "UNSIGNED"
        case .real: "DOUBLE"
        default: columnType(type)
        }
    }

    /// utf8mb4 with a binary collation that does not pad: `=` and `LIKE` are case-sensitive and
    /// `'a' = 'a '` is false, as on SQLite and PostgreSQL.
    public var tableOptions: String { " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin" }

    /// A plain index on text covers its first 255 characters; a unique one covers it whole (MariaDB
    /// keeps a hash for long unique keys).
    public func indexColumn(_ quotedName: String, type: CRUDColumnType, unique: Bool) -> String {
        switch type {
        case .text where !unique, .blob where !unique, .json where !unique: "\(quotedName)(255)"
        default: quotedName
        }
    }

    public func declaredType(_ declared: String, holds type: CRUDColumnType) -> Bool {
        let name = declared.lowercased()
        let base = name.split(separator: "(").first.map(String.init) ?? name
        let unsigned = name.hasSuffix(" unsigned")
        switch type {
        case let .integer(bits, signed):
            let width = ["tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "bigint": 64][base] ?? 0
            return width >= bits && (signed ? !unsigned || width > bits : true)
        case let .real(bits): return base == "double" || (bits <= 32 && base == "float")
        case .bool: return name.hasPrefix("tinyint(1)")
        case .text: return ["longtext", "mediumtext", "text", "varchar", "char", "tinytext"].contains(base)
        case .blob: return ["longblob", "mediumblob", "blob", "varbinary", "binary", "tinyblob"].contains(base)
        case .date: return name == "datetime(6)" || name == "timestamp(6)"
        case .uuid: return name == "binary(16)" || name == "char(36)"
        case .json: return base == "json" || base == "longtext"
        }
    }

    public var alterTableRebuilds: Bool { false }

    public var defaultValuesClause: String { " () VALUES ()" }

    /// MariaDB and MySQL take no `LIMIT` in a subquery of an `IN` list, but do in a derived table.
    public func inSubquery(_ subquery: String, column: String) -> String {
        "SELECT crud_in.\(column) FROM (\(subquery)) AS crud_in"
    }

    /// `CHANGE COLUMN` for a renamed column, `MODIFY COLUMN` for another, with the whole new
    /// definition: name, type and nullability at once (a column renamed in the same statement
    /// cannot be modified by either name).
    public func alterColumn(_ column: CRUDColumnSchema, renamedFrom old: String?, typeChanged: Bool, nullabilityChanged: Bool) -> [String] {
        let definition = "\(quote(column.name)) \(columnType(column.type))\(column.isOptional ? " NULL" : " NOT NULL")"
        if let old { return ["CHANGE COLUMN \(quote(old)) \(definition)"] }
        return typeChanged || nullabilityChanged ? ["MODIFY COLUMN \(definition)"] : []
    }
}
#endif

@_spi(CRUDDriver) import CRUD

/// SQLite's spelling of the SQL that differs between databases.
///
/// Storage: integers and `Bool` as INTEGER, `Double`/`Float` as REAL, `String` and `URL` as TEXT,
/// bytes as BLOB, `Date` as REAL seconds since 1970-01-01 UTC (sorts in time order; read it in SQL
/// with `datetime(column, 'unixepoch')`), `UUID` as its 36-character TEXT form.
public struct SQLiteDialect: CRUDDialect {
    /// The dialect; it holds no state.
    public init() {}

    public var name: String { "SQLite" }

    /// SQLite locks the whole database for a write transaction, and has no row locks.
    public func rowLock(_ lock: CRUDRowLock) -> String { "" }

    /// A deferred transaction takes its snapshot at its first read, and a reader connection cannot write.
    public var snapshotTransaction: TransactionMode { .deferred }

    /// `AUTOINCREMENT` keeps the largest key ever given in `sqlite_sequence`, and gives the next one
    /// above it.
    public var neverReusedKeyClause: String { " AUTOINCREMENT" }

    public func columnType(_ type: CRUDColumnType) -> String {
        switch type {
        case .integer, .bool: "INTEGER"
        case .real, .date: "REAL"
        case .text, .uuid, .json: "TEXT"
        case .blob: "BLOB"
        }
    }

    public func placeholder(_ position: Int) -> String {
        "?\(position + 1)"
    }

    public func limitClause(max: String?, skip: String?) -> String {
        // SQLite needs a LIMIT before an OFFSET; -1 means no limit.
        "LIMIT \(max ?? "-1")" + (skip.map { " OFFSET \($0)" } ?? "")
    }

    /// By default IMMEDIATE, which takes the write lock at once, so a transaction that writes later
    /// cannot fail halfway for want of it; other connections wait (up to the busy timeout) instead.
    /// SQLite transactions are always serializable, so `.isolation(.serializable)` is IMMEDIATE too;
    /// weaker levels and read-only transactions do not exist here.
    public func beginTransaction(_ mode: TransactionMode) throws -> String {
        switch mode {
        case .default, .immediate, .isolation(.serializable, readOnly: false): return "BEGIN IMMEDIATE"
        case .deferred: return "BEGIN DEFERRED"
        case .exclusive: return "BEGIN EXCLUSIVE"
        case .isolation:
            throw CRUDSQLGenError("transaction(\(mode)): SQLite has neither weaker isolation levels nor read-only transactions "
                + "(every SQLite transaction is serializable); use .default, .deferred, .immediate or .exclusive")
        }
    }

    public func zeroValue(_ type: CRUDColumnType) -> String {
        switch type {
        case .integer, .bool, .real, .date: "0"
        case .text: "''"
        case .blob: "X''"
        case .uuid: "'00000000-0000-0000-0000-000000000000'"
        case .json: "'null'"
        }
    }

    /// SQLite keeps a value its column's affinity cannot convert as it is ("forty-two" in an
    /// `INTEGER` column): the values of a storage class other than the one CRUD reads for `type`.
    public func valueMismatch(_ quotedColumn: String, _ type: CRUDColumnType) -> String? {
        switch type {
        case .integer, .bool: "typeof(\(quotedColumn)) <> 'integer'"
        case .real, .date: "typeof(\(quotedColumn)) NOT IN ('real', 'integer')"
        case .text, .uuid, .json: "typeof(\(quotedColumn)) <> 'text'"
        case .blob: "typeof(\(quotedColumn)) <> 'blob'"
        }
    }

    /// The unique indexes (`UNIQUE` constraints, a primary key) and the rowid primary key, as
    /// `PRIMARY KEY`. An expression in an index is a column no name matches.
    @_spi(CRUDDriver) public func uniqueKeysQuery(ofTable table: String) -> (sql: String, parameters: [CRUDDatabaseValue]) {
        ("""
        SELECT il.name, coalesce(ii.name, char(0)) FROM pragma_index_list(?1) AS il, pragma_index_info(il.name) AS ii
        WHERE il."unique" = 1 AND il.partial = 0
        UNION ALL SELECT 'PRIMARY KEY', name FROM pragma_table_info(?1) WHERE pk > 0
        """, [.text(table)])
    }

    /// SQLite stores by affinity, not by the declared name: `VARCHAR(40)` holds text as `TEXT` does.
    public func declaredType(_ declared: String, holds type: CRUDColumnType) -> Bool {
        Self.affinity(of: declared) == Self.affinity(of: columnType(type))
    }

    /// The affinity rules of SQLite's documentation (section 3.1 of "Datatypes In SQLite"), in order.
    private static func affinity(of declared: String) -> String {
        let name = declared.uppercased()
        if name.contains("INT") { return "INTEGER" }
        if name.contains("CHAR") || name.contains("CLOB") || name.contains("TEXT") { return "TEXT" }
        if name.contains("BLOB") || name.isEmpty { return "BLOB" }
        if name.contains("REAL") || name.contains("FLOA") || name.contains("DOUB") { return "REAL" }
        return "NUMERIC"
    }
}

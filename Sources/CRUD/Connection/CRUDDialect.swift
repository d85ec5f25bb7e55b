/// The parts of SQL that differ between databases. The query engine writes everything else the
/// same for every backend. For drivers, which implement it: users reach its spellings through
/// `Database.quote(_:)` and `Database.placeholder(_:)`, so it is out of the user documentation.
@_documentation(visibility: internal)
public protocol CRUDDialect: Sendable {
    /// The SQL type of a column.
    func columnType(_ type: CRUDColumnType) -> String

    /// The placeholder for parameter `position` (0-based): `?1`, `$1`.
    func placeholder(_ position: Int) -> String

    /// `LIMIT`/`OFFSET` with placeholders already made; either may be absent, not both.
    func limitClause(max: String?, skip: String?) -> String

    /// The statement that starts an outermost transaction of `mode`.
    /// - Throws: `CRUDSQLGenError` for a mode this database does not have.
    func beginTransaction(_ mode: TransactionMode) throws -> String

    /// The statement that commits the outermost transaction: `COMMIT` by default.
    var commitTransaction: String { get }

    /// The statement that rolls back the outermost transaction: `ROLLBACK` by default.
    var rollbackTransaction: String { get }

    /// The statement that opens the savepoint `name` inside a transaction: `SAVEPOINT name`.
    func savepoint(_ name: String) -> String

    /// The statement that keeps what was done since the savepoint `name` and ends it:
    /// `RELEASE SAVEPOINT name`.
    func releaseSavepoint(_ name: String) -> String

    /// The statement that undoes what was done since the savepoint `name`, which stays open:
    /// `ROLLBACK TO SAVEPOINT name`.
    func rollbackToSavepoint(_ name: String) -> String

    /// What follows a `SELECT` to lock the rows it reads until the transaction ends (` FOR UPDATE`,
    /// ` FOR SHARE`), or `""` where the database locks no rows, only itself, for a write
    /// transaction (SQLite).
    func rowLock(_ lock: CRUDRowLock) -> String

    /// The transaction in which every statement reads the same snapshot of the database, and none
    /// writes: what a join's two queries run in outside a transaction of the caller's.
    var snapshotTransaction: TransactionMode { get }

    /// What follows `LIKE pattern` to make `\` the escape character of the pattern (the chain's
    /// `starts(with:)`, `contains`, `ends(with:)` escape `%`, `_` and `\` with it).
    var likeEscapeClause: String { get }

    /// Whether `CREATE INDEX IF NOT EXISTS` parses (MySQL proper has no such form; MariaDB has).
    /// Where it does not, `index` takes the database's "duplicate index" error for done. The default
    /// is `true`.
    var createIndexIfNotExists: Bool { get }

    /// Whether `error`, from a `CREATE INDEX` without `IF NOT EXISTS`, says the index exists. The
    /// default is `false`.
    func indexAlreadyExists(_ error: CRUDSQLExeError) -> Bool

    /// An identifier quoted for this database: safe for any table or column name, whatever its
    /// characters or whether it is a keyword. The default puts it in double quotes, inner quotes doubled.
    func quote(_ identifier: String) -> String

    /// A constant of the column type that fills existing rows when `.reconcileTable` adds a
    /// non-optional column.
    func zeroValue(_ type: CRUDColumnType) -> String

    /// The SQL type of a primary-key column: where the database can assign integer keys itself,
    /// the form that makes it do so.
    func primaryKeyColumnType(_ type: CRUDColumnType) -> String

    /// What follows `PRIMARY KEY` for a database-made integer key that is never given again after its
    /// row is deleted (`TableCreatePolicy.neverReuseKeys`): SQLite's ` AUTOINCREMENT`, where the
    /// default key is the largest one plus one. Empty where keys are never reused anyway (an
    /// identity column, `AUTO_INCREMENT`), the default.
    var neverReusedKeyClause: String { get }

    /// A SQL function applied to `argument` (a column or a placeholder).
    func function(_ function: CRUDSQLFunction, _ argument: String) -> String

    /// How many rows one INSERT statement carries: 1 where a prepared single-row insert repeated is
    /// fastest (SQLite, in process), more where each statement is a round trip (a server).
    func rowsPerInsert(columns: Int) -> Int

    /// What follows an INSERT's values to handle a row that conflicts on the `target` columns
    /// (quoted): nothing done, or the `update` columns (quoted; empty for nothing) set to the values
    /// the insert proposed. `nil` where no clause limits the conflict to the target (MySQL's
    /// `ON DUPLICATE KEY UPDATE` fires on any unique key): the engine then inserts, and updates
    /// a row whose insert collided with the target's own key (`uniqueKeysQuery(ofTable:)`).
    func upsertClause(target: [String], update: [String]) -> String?

    /// The catalog query of the primary key and unique constraints (unique indexes) of `table`:
    /// each row a key's name (the one a duplicate-key error gives it) and one of its columns. How an
    /// upsert finds out, before it writes, that its conflict target is a key (and, where the dialect
    /// has no upsert clause, tells a conflict on its target from one on another key). Partial
    /// unique indexes are left out. Data, not a call: either runner runs it as any statement.
    @_spi(CRUDDriver) func uniqueKeysQuery(ofTable table: String) -> (sql: String, parameters: [CRUDDatabaseValue])

    /// Whether a write of `kind` can end in a `RETURNING` clause. The default is `true`; MariaDB
    /// returns from INSERT and DELETE only, MySQL from none.
    func canReturn(from kind: CRUDChangeKind) -> Bool

    /// An expression that a RETURNING clause of an upsert can return to tell whether the row was
    /// inserted (true) or updated; `nil` where the database has none.
    var upsertInsertedFlag: String? { get }

    /// Whether a column the database declares as `declared` (as `CRUDConnection.columns(ofTable:)`
    /// reports it) stores values of `type` and gives them back unchanged: what the schema check and
    /// `alterTable` compare.
    func declaredType(_ declared: String, holds type: CRUDColumnType) -> Bool

    /// What follows an ordering term of an optional column so that NULLs come first ascending and
    /// last descending, the order every backend documents: `NULLS FIRST`/`NULLS LAST`, or nothing
    /// where the database sorts so already (MySQL).
    func nullOrdering(descending: Bool) -> String

    /// The type a `CAST` converts to, for results read as `type` (a sum, a mean).
    func castType(_ type: CRUDColumnType) -> String

    /// What follows the column list of `CREATE TABLE` (MySQL's character set and collation).
    var tableOptions: String { get }

    /// A column in an index's column list (MySQL indexes text by a prefix).
    func indexColumn(_ quotedName: String, type: CRUDColumnType, unique: Bool) -> String

    /// What follows `INSERT INTO "table"` for a row of default values only: ` DEFAULT VALUES`, or
    /// MySQL's ` () VALUES ()`.
    var defaultValuesClause: String { get }

    /// A subquery as the list of an `IN`, selecting `column` (quoted); MySQL wraps one that may
    /// have a `LIMIT` in a derived table, which it does not take in an `IN` list itself.
    func inSubquery(_ subquery: String, column: String) -> String

    /// The database's name for messages: "SQLite", "PostgreSQL", "MySQL".
    var name: String { get }

    /// Whether schema changes (`CREATE`, `ALTER`, `DROP`) take part in transactions; `false` where
    /// each one commits the open transaction (MySQL). The default is `true`.
    var transactionalDDL: Bool { get }

    /// The statement that limits how long a connection waits for another's lock on a table's
    /// definition to `seconds`, where a schema change can wait for one (MySQL's metadata locks,
    /// which a transaction keeps on every table it used until it ends), or `nil`. A schema change
    /// that CRUD runs beside an open transaction waits no longer than the pool's timeout. The
    /// default is `nil`.
    func lockWaitLimit(seconds: Int) -> String?

    /// Whether `alterTable` rebuilds a table (SQLite, whose `ALTER TABLE` cannot retype a column)
    /// rather than change its columns in place with `alterColumn`. The default is `true`.
    var alterTableRebuilds: Bool { get }

    /// The `ALTER TABLE` actions (what follows `ALTER TABLE "t" `) that bring a column in place to
    /// `column`: renamed from `old` where given, converted to its type or nullability where changed,
    /// failing on a value that does not convert. Where schema changes are transactional each action
    /// runs on its own, in order; elsewhere all of a table's actions run as one statement, which
    /// the database applies whole or not at all.
    func alterColumn(_ column: CRUDColumnSchema, renamedFrom old: String?, typeChanged: Bool, nullabilityChanged: Bool) -> [String]

    /// The statement that drops the index `quotedName` of `quotedTable`. The default is
    /// `DROP INDEX name`.
    func dropIndex(_ quotedName: String, on quotedTable: String) -> String

    /// The `ALTER TABLE` action that drops `constraint`, named `quotedName`. The default is
    /// `DROP CONSTRAINT name`.
    func dropConstraint(_ quotedName: String, _ constraint: CRUDSchemaConstraint) -> String

    /// A condition true of a row whose `quotedColumn` holds a value that is not of `type`: where the
    /// database keeps any value in any column (SQLite), what finds the values a retyped column could
    /// not convert; `nil` where the database converts or refuses every value itself, or cannot tell.
    /// The default is `nil`.
    func valueMismatch(_ quotedColumn: String, _ type: CRUDColumnType) -> String?

    /// `value` as a string literal in SQL text: what a typed check's text is written with. The
    /// default is standard SQL's, in single quotes with inner ones doubled.
    func stringLiteral(_ value: String) -> String

    /// The longest identifier the database keeps, in UTF-8 bytes, or `nil` for no limit that
    /// matters: names CRUD makes up (an index's) are shortened to fit, with a hash that keeps them
    /// distinct, where the database would cut them itself and make two the same. The default is `nil`.
    var maxIdentifierBytes: Int? { get }

    /// Whether a foreign key's `ON DELETE`/`ON UPDATE SET DEFAULT` works; `false` where the database
    /// accepts it but does not carry it out (InnoDB), so that `create` refuses it. The default is `true`.
    var supportsSetDefaultAction: Bool { get }

    /// The statements that take and give back a lock held by one session at a time across the whole
    /// database server, under which migrators run one after another; `nil` where each step's own
    /// transaction already serializes them (SQLite's write lock). `lock` waits for the lock and
    /// returns one row whose first column is 1 once it holds it. `unlock` is `nil` for a lock the
    /// transaction holds, given back when it ends: the whole run is then one transaction, its steps
    /// savepoints. The default is `nil`.
    var migrationLock: (lock: String, unlock: String?)? { get }
}

extension CRUDDialect {
    /// `lower(x)`, `upper(x)`, `length(x)` (characters), `trim(x)`; case-insensitive as `lower(x)`.
    public func function(_ function: CRUDSQLFunction, _ argument: String) -> String {
        switch function {
        case .lower, .caseInsensitive: "lower(\(argument))"
        case .upper: "upper(\(argument))"
        case .length: "length(\(argument))"
        case .trim: "trim(\(argument))"
        }
    }

    public func primaryKeyColumnType(_ type: CRUDColumnType) -> String {
        columnType(type)
    }

    public var neverReusedKeyClause: String { "" }

    public func rowsPerInsert(columns: Int) -> Int {
        1
    }

    /// `ON CONFLICT (…) DO NOTHING` or `DO UPDATE SET x = excluded.x, …` (SQLite 3.24 and later,
    /// PostgreSQL 9.5 and later).
    public func upsertClause(target: [String], update: [String]) -> String? {
        let conflict = " ON CONFLICT (\(target.joined(separator: ", ")))"
        guard !update.isEmpty else { return conflict + " DO NOTHING" }
        return conflict + " DO UPDATE SET " + update.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }

    public var upsertInsertedFlag: String? { nil }

    public func canReturn(from kind: CRUDChangeKind) -> Bool { true }

    public func declaredType(_ declared: String, holds type: CRUDColumnType) -> Bool {
        declared.lowercased() == columnType(type).lowercased()
    }

    public var alterTableRebuilds: Bool { true }

    public var maxIdentifierBytes: Int? { nil }

    public var supportsSetDefaultAction: Bool { true }

    public func dropIndex(_ quotedName: String, on quotedTable: String) -> String {
        "DROP INDEX \(quotedName)"
    }

    public func dropConstraint(_ quotedName: String, _ constraint: CRUDSchemaConstraint) -> String {
        "DROP CONSTRAINT \(quotedName)"
    }

    public func valueMismatch(_ quotedColumn: String, _ type: CRUDColumnType) -> String? { nil }

    public func stringLiteral(_ value: String) -> String {
        "'" + value.replacing("'", with: "''") + "'"
    }

    public var migrationLock: (lock: String, unlock: String?)? { nil }

    public var transactionalDDL: Bool { true }

    public func lockWaitLimit(seconds: Int) -> String? { nil }

    public var defaultValuesClause: String { " DEFAULT VALUES" }

    public func inSubquery(_ subquery: String, column: String) -> String {
        subquery
    }

    public func nullOrdering(descending: Bool) -> String {
        descending ? " NULLS LAST" : " NULLS FIRST"
    }

    public func castType(_ type: CRUDColumnType) -> String {
        columnType(type)
    }

    public var tableOptions: String { "" }

    public func indexColumn(_ quotedName: String, type: CRUDColumnType, unique: Bool) -> String {
        quotedName
    }

    /// `RENAME COLUMN`, then `ALTER COLUMN … TYPE … USING` and `SET`/`DROP NOT NULL` (PostgreSQL).
    public func alterColumn(_ column: CRUDColumnSchema, renamedFrom old: String?, typeChanged: Bool, nullabilityChanged: Bool) -> [String] {
        let name = quote(column.name)
        let type = columnType(column.type)
        return (old.map { ["RENAME COLUMN \(quote($0)) TO \(name)"] } ?? [])
            + (typeChanged ? ["ALTER COLUMN \(name) TYPE \(type) USING \(name)::\(type)"] : [])
            + (nullabilityChanged ? ["ALTER COLUMN \(name) " + (column.isOptional ? "DROP" : "SET") + " NOT NULL"] : [])
    }

    public var commitTransaction: String { "COMMIT" }

    public var rollbackTransaction: String { "ROLLBACK" }

    public func savepoint(_ name: String) -> String { "SAVEPOINT \(name)" }

    public func releaseSavepoint(_ name: String) -> String { "RELEASE SAVEPOINT \(name)" }

    public func rollbackToSavepoint(_ name: String) -> String { "ROLLBACK TO SAVEPOINT \(name)" }

    public func rowLock(_ lock: CRUDRowLock) -> String {
        switch lock {
        case .update: " FOR UPDATE"
        case .share: " FOR SHARE"
        }
    }

    public var snapshotTransaction: TransactionMode { .isolation(.repeatableRead, readOnly: true) }

    public var likeEscapeClause: String { " ESCAPE '\\'" }

    public var createIndexIfNotExists: Bool { true }

    public func indexAlreadyExists(_ error: CRUDSQLExeError) -> Bool { false }

    /// An identifier in double quotes, inner quotes doubled: safe for any table or column name.
    public func quote(_ identifier: String) -> String {
        CRUDDefaultQuoting.quote(identifier)
    }
}

/// SQL's standard quoting of an identifier, which SQLite and PostgreSQL read: the dialects' default
/// `quote`.
enum CRUDDefaultQuoting {
    /// `identifier` in double quotes, inner quotes doubled.
    static func quote(_ identifier: String) -> String {
        var quoted = "\""
        quoted.reserveCapacity(identifier.utf8.count + 2)
        if identifier.utf8.contains(UInt8(ascii: "\"")) {
            for character in identifier {
                if character == "\"" { quoted.append("\"") }
                quoted.append(character)
            }
        } else {
            quoted += identifier
        }
        quoted.append("\"")
        return quoted
    }
}

extension CRUDDialect {
    /// Whether `error`, from a `CREATE INDEX`, is this database's way of saying what `IF NOT EXISTS`
    /// would have said, where the dialect cannot write that: the index is there already.
    func refusedExistingIndex(_ error: CRUDSQLExeError) -> Bool {
        !createIndexIfNotExists && indexAlreadyExists(error)
    }
}

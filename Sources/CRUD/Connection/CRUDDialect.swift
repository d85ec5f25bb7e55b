/// The parts of SQL that differ between databases. The query engine writes everything else the
/// same for every backend.
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

    /// A constant of the column type that fills existing rows when `.reconcileTable` adds a
    /// non-optional column.
    func zeroValue(_ type: CRUDColumnType) -> String

    /// The SQL type of a primary-key column: where the database can assign integer keys itself,
    /// the form that makes it do so.
    func primaryKeyColumnType(_ type: CRUDColumnType) -> String

    /// A SQL function applied to `argument` (a column or a placeholder).
    func function(_ function: CRUDSQLFunction, _ argument: String) -> String

    /// How many rows one INSERT statement carries: 1 where a prepared single-row insert repeated is
    /// fastest (SQLite, in process), more where each statement is a round trip (a server).
    func rowsPerInsert(columns: Int) -> Int

    /// What follows an INSERT's values to handle a row that conflicts on the `target` columns
    /// (quoted): nothing done, or the `update` columns (quoted; empty for nothing) set to the values
    /// the insert proposed.
    func upsertClause(target: [String], update: [String]) -> String

    /// An expression that a RETURNING clause of an upsert can return to tell whether the row was
    /// inserted (true) or updated; `nil` where the database has none.
    var upsertInsertedFlag: String? { get }

    /// Whether a column the database declares as `declared` (as `CRUDConnection.columns(ofTable:)`
    /// reports it) stores values of `type` and gives them back unchanged: what the schema check and
    /// `alterTable` compare.
    func declaredType(_ declared: String, holds type: CRUDColumnType) -> Bool

    /// Whether `alterTable` rebuilds a table (SQLite, whose `ALTER TABLE` cannot retype a column)
    /// rather than change its columns in place with the two statements below. The default is `true`.
    var alterTableRebuilds: Bool { get }

    /// The statement that changes a column's type in place, converting its values (and failing on
    /// a value that does not convert).
    func alterColumnType(_ column: String, of table: String, to type: String) -> String

    /// The statement that makes a column accept NULL, or refuse it, in place.
    func alterColumnNullability(_ column: String, of table: String, nullable: Bool) -> String
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

    public func rowsPerInsert(columns: Int) -> Int {
        1
    }

    /// `ON CONFLICT (…) DO NOTHING` or `DO UPDATE SET x = excluded.x, …` (SQLite 3.24 and later,
    /// PostgreSQL 9.5 and later).
    public func upsertClause(target: [String], update: [String]) -> String {
        let conflict = " ON CONFLICT (\(target.joined(separator: ", ")))"
        guard !update.isEmpty else { return conflict + " DO NOTHING" }
        return conflict + " DO UPDATE SET " + update.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }

    public var upsertInsertedFlag: String? { nil }

    public func declaredType(_ declared: String, holds type: CRUDColumnType) -> Bool {
        declared.lowercased() == columnType(type).lowercased()
    }

    public var alterTableRebuilds: Bool { true }

    /// PostgreSQL's spelling: `ALTER COLUMN … TYPE … USING column::type`.
    public func alterColumnType(_ column: String, of table: String, to type: String) -> String {
        "ALTER TABLE \(quote(table)) ALTER COLUMN \(quote(column)) TYPE \(type) USING \(quote(column))::\(type)"
    }

    /// PostgreSQL's spelling: `ALTER COLUMN … SET NOT NULL` or `DROP NOT NULL`.
    public func alterColumnNullability(_ column: String, of table: String, nullable: Bool) -> String {
        "ALTER TABLE \(quote(table)) ALTER COLUMN \(quote(column)) \(nullable ? "DROP" : "SET") NOT NULL"
    }

    /// An identifier in double quotes, inner quotes doubled: safe for any table or column name.
    public func quote(_ identifier: String) -> String {
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

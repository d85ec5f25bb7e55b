import CRUD

/// What `alterTable`'s rebuild needs of SQLite: foreign keys off around its transaction (the pragma
/// does nothing inside one), checked before it commits, the table's indexes to make again, its
/// `CREATE TABLE` text, and the `AUTOINCREMENT` counter to carry over.
extension SQLiteConnection {
    public func withForeignKeysOff<T>(_ body: () throws -> T) throws -> T {
        guard try foreignKeysEnforced() else { return try body() }
        try execute("PRAGMA foreign_keys = OFF")
        defer { try? execute("PRAGMA foreign_keys = ON") }
        return try body()
    }

    public func dropRunsForeignKeyActions() throws -> Bool {
        try foreignKeysEnforced()
    }

    public func checkForeignKeys() throws {
        let check = try prepare("SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 5")
        defer { release(check) }
        var rows: [String] = []
        var table: String?
        while try check.step() {
            let name = try check.readText(0)
            table = table ?? name
            rows.append("row \(check.isNull(1) ? "?" : String(try check.readInt64(1))) of \"\(name)\" references a missing row of \"\(try check.readText(2))\"")
        }
        guard !rows.isEmpty else { return }
        throw CRUDSQLExeError("SQLite foreign key check failed before commit: " + rows.joined(separator: "; "),
                              sql: check.sql, kind: .foreignKeyViolation, table: table)
    }

    public func indexes(ofTable table: String) throws -> [(sql: String, columns: [String])] {
        let list = try prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY name")
        defer { release(list) }
        try list.bindText(table, at: 0)
        var found: [(name: String, sql: String)] = []
        while try list.step() { found.append((try list.readText(0), try list.readText(1))) }
        return try found.map { index in
            let info = try prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")
            defer { release(info) }
            try info.bindText(index.name, at: 0)
            var columns: [String] = []
            // An expression has no name here: such an index is made again, and fails the rebuild if
            // its expression names a dropped column.
            while try info.step() {
                if !info.isNull(0) { columns.append(try info.readText(0)) }
            }
            return (index.sql, columns)
        }
    }

    public func tableDefinition(ofTable table: String) throws -> String? {
        let definition = try prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1")
        defer { release(definition) }
        try definition.bindText(table, at: 0)
        return try definition.step() && !definition.isNull(0) ? try definition.readText(0) : nil
    }

    public func keyCounter(ofTable table: String) throws -> Int64? {
        // sqlite_sequence exists once some table with AUTOINCREMENT does.
        guard try tableDefinition(ofTable: "sqlite_sequence") != nil else { return nil }
        let counter = try prepare("SELECT seq FROM sqlite_sequence WHERE name = ?1")
        defer { release(counter) }
        try counter.bindText(table, at: 0)
        return try counter.step() ? try counter.readInt64(0) : nil
    }

    public func raiseKeyCounter(ofTable table: String, to value: Int64) throws {
        for sql in ["INSERT INTO sqlite_sequence (name, seq) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?1)",
                    "UPDATE sqlite_sequence SET seq = ?2 WHERE name = ?1 AND seq < ?2"] {
            let statement = try prepare(sql)
            defer { release(statement) }
            try statement.bindText(table, at: 0)
            try statement.bindInt64(value, at: 1)
            _ = try statement.step()
        }
    }

    private func foreignKeysEnforced() throws -> Bool {
        let pragma = try prepare("PRAGMA foreign_keys")
        defer { release(pragma) }
        return try pragma.step() && pragma.readInt64(0) != 0
    }
}

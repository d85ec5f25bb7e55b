import CRUD

/// What `alterTable`'s rebuild needs of SQLite: foreign keys off around its transaction (the pragma
/// does nothing inside one), checked before it commits, and the table's indexes to make again.
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

    private func foreignKeysEnforced() throws -> Bool {
        let pragma = try prepare("PRAGMA foreign_keys")
        defer { release(pragma) }
        return try pragma.step() && pragma.readInt64(0) != 0
    }
}

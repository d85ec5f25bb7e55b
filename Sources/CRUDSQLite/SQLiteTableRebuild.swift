@_spi(CRUDDriver) import CRUD

/// What `alterTable`'s rebuild needs of SQLite: foreign keys off around its transaction (the pragma
/// does nothing inside one), checked before it commits, the table's indexes to make again, its
/// `CREATE TABLE` text, and the `AUTOINCREMENT` counter to carry over.
extension SQLiteConnection {
    @_spi(CRUDDriver) public func withForeignKeysOff<T>(using runner: some CRUDCatalogRunner<Statement>, _ body: () throws -> T) throws -> T {
        guard try foreignKeysEnforced(using: runner) else { return try body() }
        try runner.execute("PRAGMA foreign_keys = OFF")
        defer {
            do {
                try runner.execute("PRAGMA foreign_keys = ON")
            } catch {
                CRUDLogging.log(.error, "turning foreign keys on again after a table rebuild failed: \(error)")
            }
        }
        return try body()
    }

    @_spi(CRUDDriver) public func dropRunsForeignKeyActions(using runner: some CRUDCatalogRunner<Statement>) throws -> Bool {
        try foreignKeysEnforced(using: runner)
    }

    @_spi(CRUDDriver) public func checkForeignKeys(using runner: some CRUDCatalogRunner<Statement>) throws {
        let sql = "SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 5"
        var rows: [String] = []
        var table: String?
        try runner.forEachRow(sql, []) { check in
            let name = try check.readText(0)
            table = table ?? name
            rows.append("row \(check.isNull(1) ? "?" : String(try check.readInt64(1))) of \"\(name)\" references a missing row of \"\(try check.readText(2))\"")
        }
        guard !rows.isEmpty else { return }
        throw CRUDSQLExeError("SQLite foreign key check failed before commit: " + rows.joined(separator: "; "),
                              sql: sql, kind: .foreignKeyViolation, table: table)
    }

    @_spi(CRUDDriver) public func indexes(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> [(name: String, sql: String, columns: [String])] {
        var found: [(name: String, sql: String)] = []
        try runner.forEachRow("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY name",
                              [.text(table)]) { found.append((try $0.readText(0), try $0.readText(1))) }
        return try found.map { index in
            var columns: [String] = []
            // An expression has no name here: such an index is made again, and fails the rebuild if
            // its expression names a dropped column.
            try runner.forEachRow("SELECT name FROM pragma_index_info(?1) ORDER BY seqno", [.text(index.name)]) { info in
                if !info.isNull(0) { columns.append(try info.readText(0)) }
            }
            return (index.name, index.sql, columns)
        }
    }

    /// SQLite keeps a table's constraints only in its `CREATE TABLE` text, where CRUD writes each as
    /// `CONSTRAINT "name"`.
    @_spi(CRUDDriver) public func constraintNames(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Set<String> {
        guard let definition = try tableDefinition(ofTable: table, using: runner) else { return [] }
        var names: Set<String> = []
        var rest = Substring(definition)
        while let found = rest.range(of: "CONSTRAINT \"") {
            var name = ""
            var index = found.upperBound
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                if character == "\"" {
                    guard index < rest.endIndex, rest[index] == "\"" else { break }
                    index = rest.index(after: index)
                }
                name.append(character)
            }
            names.insert(name)
            rest = rest[index...]
        }
        return names
    }

    @_spi(CRUDDriver) public func tableDefinition(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> String? {
        var definition: String?
        try runner.forEachRow("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1", [.text(table)]) { row in
            definition = row.isNull(0) ? nil : try row.readText(0)
        }
        return definition
    }

    @_spi(CRUDDriver) public func keyCounter(ofTable table: String, using runner: some CRUDCatalogRunner<Statement>) throws -> Int64? {
        // sqlite_sequence exists once some table with AUTOINCREMENT does.
        guard try tableDefinition(ofTable: "sqlite_sequence", using: runner) != nil else { return nil }
        var counter: Int64?
        try runner.forEachRow("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(table)]) { counter = try $0.readInt64(0) }
        return counter
    }

    @_spi(CRUDDriver) public func raiseKeyCounter(ofTable table: String, to value: Int64, using runner: some CRUDCatalogRunner<Statement>) throws {
        for sql in ["INSERT INTO sqlite_sequence (name, seq) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?1)",
                    "UPDATE sqlite_sequence SET seq = ?2 WHERE name = ?1 AND seq < ?2"] {
            try runner.forEachRow(sql, [.text(table), .integer(value)]) { _ in }
        }
    }

    private func foreignKeysEnforced(using runner: some CRUDCatalogRunner<Statement>) throws -> Bool {
        var enforced = false
        try runner.forEachRow("PRAGMA foreign_keys", []) { enforced = try $0.readInt64(0) != 0 }
        return enforced
    }
}

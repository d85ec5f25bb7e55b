extension CRUDSchemaMigration {
    /// What the step says, as 16 hexadecimal digits: FNV-1a (64 bits) of its name, changes and
    /// schema written out line by line. Recorded when the step is applied, so that a step edited
    /// after that is told at the next run; a change detector, not a signature.
    var checksum: String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in canonicalText.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The step written out in a form of CRUD's own, which no compiler or library version changes.
    private var canonicalText: String {
        var lines = ["migration \(Self.quoted(name))"]
        for change in changes { lines.append("change " + Self.canonical(change)) }
        for table in schema.tables { lines.append("table " + Self.canonical(table)) }
        return lines.joined(separator: "\n")
    }

    /// `text` with its length in bytes before it, so that no text can read as two.
    private static func quoted(_ text: String) -> String {
        "\(text.utf8.count):\(text)"
    }

    private static func names(_ names: [String]) -> String {
        "(" + names.map(quoted).joined(separator: ",") + ")"
    }

    private static func canonical(_ column: CRUDSchemaColumn) -> String {
        "\(quoted(column.name)) \(column.type)\(column.isNullable ? " null" : "")"
    }

    private static func canonical(_ index: CRUDSchemaIndex) -> String {
        "\(index.isUnique ? "unique " : "")index \(quoted(index.name)) \(names(index.columns))"
    }

    private static func canonical(_ constraint: CRUDSchemaConstraint) -> String {
        switch constraint {
        case let .unique(name, columns):
            "unique \(quoted(name)) \(Self.names(columns))"
        case let .foreignKey(name, columns, table, referenced, onDelete, onUpdate):
            "foreign key \(quoted(name)) \(Self.names(columns)) \(quoted(table)) \(Self.names(referenced)) \(onDelete.rawValue) \(onUpdate.rawValue)"
        case let .check(name, condition):
            "check \(quoted(name)) \(quoted(condition))"
        case let .typedCheck(name, condition):
            "typed check \(quoted(name)) \(quoted(condition))"
        }
    }

    private static func canonical(_ table: CRUDSchemaTable) -> String {
        ([quoted(table.name), "key " + (table.primaryKey.map(quoted) ?? "none")] + table.columns.map(canonical)
            + table.constraints.map(canonical) + table.indexes.map(canonical) + (table.neverReusesKeys ? ["never reuses keys"] : []))
            .joined(separator: "; ")
    }

    private static func canonical(_ change: CRUDSchemaChange) -> String {
        switch change {
        case let .createTable(table): "create " + canonical(table)
        case let .dropTable(table): "drop " + quoted(table)
        case let .addColumn(column, table): "\(quoted(table)) add " + canonical(column)
        case let .dropColumn(column, table): "\(quoted(table)) drop \(quoted(column))"
        case let .renameColumn(old, new, table): "\(quoted(table)) rename \(quoted(old)) \(quoted(new))"
        case let .alterColumn(from, to, table): "\(quoted(table)) alter \(canonical(from)) to \(canonical(to))"
        case let .convertColumn(from, to, table, conversion):
            "\(quoted(table)) convert \(canonical(from)) to \(canonical(to)) by \(conversion.rawValue)"
        case let .addIndex(index, table): "\(quoted(table)) add " + canonical(index)
        case let .dropIndex(index, table): "\(quoted(table)) drop " + canonical(index)
        case let .addConstraint(constraint, table): "\(quoted(table)) add " + canonical(constraint)
        case let .dropConstraint(constraint, table): "\(quoted(table)) drop " + canonical(constraint)
        case let .setNeverReusesKeys(never, table): "\(quoted(table)) never reuses keys \(never)"
        }
    }
}

/// One change from one schema to the next, as a generated step writes it.
enum SchemaChange: Equatable {
    case createTable(SnapshotTable)
    case dropTable(String)
    case addColumn(SnapshotColumn, table: String)
    case dropColumn(String, table: String)
    case renameColumn(String, to: String, table: String)
    case alterColumn(from: SnapshotColumn, to: SnapshotColumn, table: String)
    case addIndex(SnapshotIndex, table: String)
    case dropIndex(SnapshotIndex, table: String)
    case addConstraint(SnapshotConstraint, table: String)
    case dropConstraint(SnapshotConstraint, table: String)
    case setNeverReusesKeys(Bool, table: String)

    /// What the change does, in a few words: a step's doc comment and the build's warning.
    var summary: String {
        func spelled(_ column: SnapshotColumn) -> String { "\(column.type)" + (column.isNullable ? "?" : "") }
        switch self {
        case let .createTable(table): return "creates \(table.name)"
        case let .dropTable(table): return "drops \(table)"
        case let .addColumn(column, table): return "adds \(table).\(column.name)"
        case let .dropColumn(column, table): return "drops \(table).\(column)"
        case let .renameColumn(old, new, table): return "renames \(table).\(old) to \(new)"
        case let .alterColumn(from, to, table): return "changes \(table).\(to.name) from \(spelled(from)) to \(spelled(to))"
        case let .addIndex(index, table): return "adds the index \(index.name) of \(table)"
        case let .dropIndex(index, table): return "drops the index \(index.name) of \(table)"
        case let .addConstraint(constraint, table): return "adds the constraint \(constraint.name) of \(table)"
        case let .dropConstraint(constraint, table): return "drops the constraint \(constraint.name) of \(table)"
        case let .setNeverReusesKeys(never, table): return never ? "makes \(table) never reuse keys" : "lets \(table) reuse keys"
        }
    }
}

/// The changes that take a database from one snapshot to the next.
struct SchemaDiff {
    var changes: [SchemaChange] = []
    /// Columns dropped and added in one table without a rename hint: written as such, with a loud
    /// comment, since the values of a renamed column would be lost.
    var unhintedRenames: [(table: String, dropped: [String], added: [String])] = []
    /// Tables dropped and created in one step: a model renamed, or given another `tableName`, loses
    /// its rows that way, so the step says so loudly.
    var replacedTables: (dropped: [String], created: [String])?
    /// Changes a generated step cannot make (a primary key changed), each said in a sentence.
    var unsupported: [(table: String, message: String)] = []

    /// From `old` (no tables for a first step) to `new`; `renames` gives, by table, each column's
    /// earlier name where its model declares one.
    init(from old: SchemaSnapshot, to new: SchemaSnapshot, renames: [String: [String: String]]) {
        for table in Self.creationOrder(new.tables.filter { old[table: $0.name] == nil }) {
            changes.append(.createTable(table))
        }
        for table in new.tables {
            guard let before = old[table: table.name] else { continue }
            compare(before, table, renames: renames[table.name] ?? [:])
        }
        let dropped = old.tables.filter { new[table: $0.name] == nil }.map(\.name)
        changes += dropped.map { .dropTable($0) }
        let created = new.tables.filter { old[table: $0.name] == nil }.map(\.name)
        if !dropped.isEmpty, !created.isEmpty {
            replacedTables = (dropped, created)
        }
    }

    private mutating func compare(_ old: SnapshotTable, _ new: SnapshotTable, renames: [String: String]) {
        let table = new.name
        if old.primaryKey != new.primaryKey {
            unsupported.append((table, "its primary key changes from \(old.primaryKey.map { "\"\($0)\"" } ?? "none") to "
                + "\(new.primaryKey.map { "\"\($0)\"" } ?? "none"), which a generated step does not do: write that step by hand"))
        }
        let newConstraints = Dictionary(new.constraints.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let oldConstraints = Dictionary(old.constraints.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newIndexes = Dictionary(new.indexes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let oldIndexes = Dictionary(old.indexes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for constraint in old.constraints where newConstraints[constraint.name] != constraint {
            changes.append(.dropConstraint(constraint, table: table))
        }
        for index in old.indexes where newIndexes[index.name] != index {
            changes.append(.dropIndex(index, table: table))
        }
        // A hint applies where the old name is gone and the new one is new.
        var renamedFrom: [String: String] = [:]
        for (newName, oldName) in renames where old[column: oldName] != nil && old[column: newName] == nil {
            renamedFrom[newName] = oldName
        }
        func isRenamed(_ column: String) -> Bool { renamedFrom.values.contains(column) }
        var alters: [SchemaChange] = []
        for column in new.columns {
            let source = old[column: renamedFrom[column.name] ?? column.name]
            if let from = renamedFrom[column.name], source != nil {
                changes.append(.renameColumn(from, to: column.name, table: table))
            }
            if let source, source.type != column.type || source.isNullable != column.isNullable {
                alters.append(.alterColumn(from: SnapshotColumn(name: column.name, type: source.type, isNullable: source.isNullable), to: column, table: table))
            }
        }
        changes += alters
        let added = new.columns.filter { old[column: renamedFrom[$0.name] ?? $0.name] == nil }
        let dropped = old.columns.filter { new[column: $0.name] == nil && !isRenamed($0.name) }.map(\.name)
        changes += added.map { .addColumn($0, table: table) }
        changes += dropped.map { .dropColumn($0, table: table) }
        if !added.isEmpty, !dropped.isEmpty {
            unhintedRenames.append((table, dropped, added.map(\.name)))
        }
        for index in new.indexes where oldIndexes[index.name] != index {
            changes.append(.addIndex(index, table: table))
        }
        for constraint in new.constraints where oldConstraints[constraint.name] != constraint {
            changes.append(.addConstraint(constraint, table: table))
        }
        if old.neverReusesKeys != new.neverReusesKeys {
            changes.append(.setNeverReusesKeys(new.neverReusesKeys, table: table))
        }
    }

    /// `tables` with every table after those its foreign keys reference (where they are among them),
    /// otherwise in their order.
    private static func creationOrder(_ tables: [SnapshotTable]) -> [SnapshotTable] {
        var ordered: [SnapshotTable] = []
        var placed: Set<String> = []
        var pending = tables
        let names = Set(tables.map(\.name))
        while !pending.isEmpty {
            let ready = pending.firstIndex { table in
                table.constraints.allSatisfy { constraint in
                    guard case let .foreignKey(_, _, target, _, _, _) = constraint else { return true }
                    return target == table.name || !names.contains(target) || placed.contains(target)
                }
            } ?? 0
            let table = pending.remove(at: ready)
            placed.insert(table.name)
            ordered.append(table)
        }
        return ordered
    }
}

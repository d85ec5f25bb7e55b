/// The schema of a target's models as the generator sees it: what `crud-migrations` writes into each
/// step file (as the runtime's `CRUDSchema`), reads back from the last one, and compares.
struct SchemaSnapshot: Equatable {
    var tables: [SnapshotTable]

    subscript(table name: String) -> SnapshotTable? {
        tables.first { $0.name == name }
    }

    /// What no database can have, each said in a sentence: a table or column twice, a key, index or
    /// constraint on a column the table lacks, a foreign key to a table or column the schema lacks.
    /// The runtime refuses such a step before applying anything; the generator refuses to go on from it.
    var problems: [String] {
        var problems: [String] = []
        var names: Set<String> = []
        for table in tables {
            let place = "the table \"\(table.name)\""
            if !names.insert(table.name).inserted { problems.append("\(place) is there twice") }
            var columns: Set<String> = []
            for column in table.columns where !columns.insert(column.name).inserted {
                problems.append("\(place) has the column \"\(column.name)\" twice")
            }
            if let key = table.primaryKey, !columns.contains(key) { problems.append("\(place) has the primary key \"\(key)\", which is none of its columns") }
            let constrained = table.indexes.map { ("index \"\($0.name)\"", $0.columns) } + table.constraints.map { constraint in
                switch constraint {
                case let .unique(name, columns), let .foreignKey(name, columns, _, _, _, _): ("constraint \"\(name)\"", columns)
                case let .check(name, _), let .typedCheck(name, _): ("constraint \"\(name)\"", [])
                }
            }
            for (what, used) in constrained {
                for column in used where !columns.contains(column) {
                    problems.append("\(place) has the \(what) on \"\(column)\", which is none of its columns")
                }
            }
            for constraint in table.constraints {
                guard case let .foreignKey(name, _, target, referenced, _, _) = constraint else { continue }
                guard let targetTable = self[table: target] else {
                    problems.append("\(place) has the foreign key \"\(name)\" to \"\(target)\", which the schema lacks")
                    continue
                }
                for column in referenced where targetTable[column: column] == nil {
                    problems.append("\(place) has the foreign key \"\(name)\" to \"\(target)\".\"\(column)\", which is none of its columns")
                }
            }
        }
        return problems
    }
}

struct SnapshotTable: Equatable {
    var name: String
    var columns: [SnapshotColumn]
    var primaryKey: String?
    var constraints: [SnapshotConstraint] = []
    var indexes: [SnapshotIndex] = []
    /// The model's `crudNeverReusesKeys`: SQLite's `AUTOINCREMENT`.
    var neverReusesKeys = false

    subscript(column name: String) -> SnapshotColumn? {
        columns.first { $0.name == name }
    }
}

struct SnapshotColumn: Equatable {
    var name: String
    var type: ColumnStorage
    var isNullable: Bool
}

struct SnapshotIndex: Equatable {
    var name: String
    var columns: [String]
    var isUnique: Bool
}

enum SnapshotConstraint: Equatable {
    case unique(name: String, columns: [String])
    /// `onDelete` and `onUpdate` are the runtime's `CRUDReferentialAction` case names.
    case foreignKey(name: String, columns: [String], table: String, referenced: [String], onDelete: String, onUpdate: String)
    case check(name: String, condition: String)
    /// A check written with key paths, its condition in standard SQL as the runtime writes it
    /// (`CheckCondition`).
    case typedCheck(name: String, condition: String)

    var name: String {
        switch self {
        case let .unique(name, _), let .foreignKey(name, _, _, _, _, _), let .check(name, _), let .typedCheck(name, _): name
        }
    }
}

/// How a column's values are stored: the runtime's `CRUDColumnType`.
enum ColumnStorage: Equatable, CustomStringConvertible {
    case integer(bits: Int, signed: Bool)
    case real(bits: Int)
    case bool, text, blob, date, uuid, json

    /// The storage of a type the runtime stores itself, by its bare name (`Int`, `[UInt8]`).
    static let builtin: [String: ColumnStorage] = [
        "Int": .integer(bits: 64, signed: true), "Int64": .integer(bits: 64, signed: true), "Int32": .integer(bits: 32, signed: true),
        "Int16": .integer(bits: 16, signed: true), "Int8": .integer(bits: 8, signed: true),
        "UInt": .integer(bits: 64, signed: false), "UInt64": .integer(bits: 64, signed: false), "UInt32": .integer(bits: 32, signed: false),
        "UInt16": .integer(bits: 16, signed: false), "UInt8": .integer(bits: 8, signed: false),
        "Double": .real(bits: 64), "Float": .real(bits: 32), "Bool": .bool, "String": .text, "URL": .text,
        "Data": .blob, "[UInt8]": .blob, "[Int8]": .blob, "Date": .date, "UUID": .uuid,
    ]

    /// Swift source for the runtime's `CRUDColumnType` value.
    var swift: String {
        switch self {
        case let .integer(bits, signed): ".integer(bits: \(bits), signed: \(signed))"
        case let .real(bits): ".real(bits: \(bits))"
        case .bool: ".bool"
        case .text: ".text"
        case .blob: ".blob"
        case .date: ".date"
        case .uuid: ".uuid"
        case .json: ".json"
        }
    }

    /// The name a diagram or a message shows.
    var description: String {
        switch self {
        case let .integer(bits, signed): "\(signed ? "int" : "uint")\(bits)"
        case let .real(bits): "real\(bits)"
        case .bool: "bool"
        case .text: "text"
        case .blob: "blob"
        case .date: "date"
        case .uuid: "uuid"
        case .json: "json"
        }
    }

    /// The storage a `CRUDColumnType` expression names (`.text`, `.integer(bits: 64, signed: true)`).
    init?(_ expression: Expression) {
        switch expression {
        case let .member(nil, name, _):
            let simple: [String: ColumnStorage] = ["bool": .bool, "text": .text, "blob": .blob, "date": .date, "uuid": .uuid, "json": .json]
            guard let storage = simple[name] else { return nil }
            self = storage
        case let .call(.member(nil, "integer", _), arguments, _):
            guard arguments.count == 2, arguments[0].label == "bits", arguments[1].label == "signed",
                  case let .integer(bits, _) = arguments[0].value, [8, 16, 32, 64].contains(bits),
                  case let .name(signed, _) = arguments[1].value, ["true", "false"].contains(signed) else { return nil }
            self = .integer(bits: bits, signed: signed == "true")
        case let .call(.member(nil, "real", _), arguments, _):
            guard arguments.count == 1, arguments[0].label == "bits", case let .integer(bits, _) = arguments[0].value,
                  [32, 64].contains(bits) else { return nil }
            self = .real(bits: bits)
        default:
            return nil
        }
    }
}

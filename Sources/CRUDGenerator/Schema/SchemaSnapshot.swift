/// The schema of a target's models as the generator sees it: what `crud-migrations` writes into each
/// step file (as the runtime's `CRUDSchema`), reads back from the last one, and compares.
struct SchemaSnapshot: Equatable {
    var tables: [SnapshotTable]

    subscript(table name: String) -> SnapshotTable? {
        tables.first { $0.name == name }
    }
}

struct SnapshotTable: Equatable {
    var name: String
    var columns: [SnapshotColumn]
    var primaryKey: String?
    var constraints: [SnapshotConstraint] = []
    var indexes: [SnapshotIndex] = []

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

    var name: String {
        switch self {
        case let .unique(name, _), let .foreignKey(name, _, _, _, _, _), let .check(name, _): name
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

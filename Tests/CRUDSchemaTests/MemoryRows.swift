import CRUD
import Foundation

struct WrongStorage: Error {
    var column: Int
    var found: CRUDDatabaseValue
}

/// Records what generated binders bind, by parameter position.
struct MemoryBinder: CRUDBinder {
    var values: [Int: CRUDDatabaseValue] = [:]

    mutating func bindNull(at position: Int) throws { try set(.null, position) }
    mutating func bindInt64(_ value: Int64, at position: Int) throws { try set(.integer(value), position) }
    mutating func bindReal(_ value: Double, at position: Int) throws { try set(.real(value), position) }
    mutating func bindText(_ value: String, at position: Int) throws { try set(.text(value), position) }
    mutating func bindBlob(_ value: [UInt8], at position: Int) throws { try set(.blob(value), position) }
    mutating func bindData(_ value: Data, at position: Int) throws { try set(.blob(Array(value)), position) }
    mutating func bindBool(_ value: Bool, at position: Int) throws { try set(.bool(value), position) }
    mutating func bindDate(_ value: Date, at position: Int) throws { try set(.date(value), position) }
    mutating func bindUUID(_ value: UUID, at position: Int) throws { try set(.uuid(value), position) }

    /// Binding one position twice is a bug in the generated binder.
    private mutating func set(_ value: CRUDDatabaseValue, _ position: Int) throws {
        precondition(values[position] == nil, "parameter \(position) bound twice")
        values[position] = value
    }

    /// The bound values in positions `0 ..< count`; a gap is a bug in the generated binder.
    func row(_ count: Int) -> [CRUDDatabaseValue] {
        precondition(values.count == count, "bound \(values.count) parameters, expected \(count)")
        return (0 ..< count).map { values[$0]! }
    }
}

/// One row of stored values, with the rows joins brought in per relation.
struct MemoryRow: CRUDRowReader {
    var values: [CRUDDatabaseValue]
    var relations: [Int: Any] = [:]

    func isNull(_ column: Int) -> Bool { values[column] == .null }

    /// The stored value of `column` if it has the storage `extract` accepts.
    private func stored<Value>(_ column: Int, _ extract: (CRUDDatabaseValue) -> Value?) throws -> Value {
        if values[column] == .null { throw decodingError(column, CRUDDecoderError.nullProblem) }
        guard let value = extract(values[column]) else { throw WrongStorage(column: column, found: values[column]) }
        return value
    }

    func readInt64(_ column: Int) throws -> Int64 { try stored(column) { if case let .integer(v) = $0 { v } else { nil } } }
    func readReal(_ column: Int) throws -> Double { try stored(column) { if case let .real(v) = $0 { v } else { nil } } }
    func readText(_ column: Int) throws -> String { try stored(column) { if case let .text(v) = $0 { v } else { nil } } }
    func readBlob(_ column: Int) throws -> [UInt8] { try stored(column) { if case let .blob(v) = $0 { v } else { nil } } }
    func readData(_ column: Int) throws -> Data { Data(try readBlob(column)) }
    func readBool(_ column: Int) throws -> Bool { try stored(column) { if case let .bool(v) = $0 { v } else { nil } } }
    func readDate(_ column: Int) throws -> Date { try stored(column) { if case let .date(v) = $0 { v } else { nil } } }
    func readUUID(_ column: Int) throws -> UUID { try stored(column) { if case let .uuid(v) = $0 { v } else { nil } } }

    func relation<Related: CRUDModel>(_ index: Int) throws -> [Related]? {
        relations[index].map { $0 as! [Related] }
    }
}

/// Binds a model's whole row through its generated binder.
func storedRow<Model: CRUDModel>(_ model: Model) throws -> [CRUDDatabaseValue] {
    var binder = MemoryBinder()
    try model.crudBindRow(to: &binder, from: 0)
    return binder.row(Model.crudSchema.columns.count)
}

/// Binds a model's row and reads it back through the generated reader.
func roundTrip<Model: CRUDModel>(_ model: Model, relations: [Int: Any] = [:]) throws -> Model {
    try Model(crudRow: MemoryRow(values: storedRow(model), relations: relations))
}

import Foundation

/// A row of the table that records applied migrations, `crud_migrations`. Written by hand, as the
/// generator would write it: the runtime cannot run its own plugin.
struct CRUDAppliedMigration: CRUDModel {
    /// Its place in the registration order, from 0.
    let position: Int
    let name: String
    let appliedAt: Date
    /// The frozen step's `checksum` when it was applied; `nil` for a hand-written step, and for a
    /// step applied before checksums were recorded (until the next run records it).
    var checksum: String?

    static let crudSchema = CRUDTableSchema(
        name: "crud_migrations",
        columns: [
            CRUDColumnSchema(name: "position", type: Int.crudColumnType, isOptional: false),
            CRUDColumnSchema(name: "name", type: String.crudColumnType, isOptional: false),
            CRUDColumnSchema(name: "applied_at", type: Date.crudColumnType, isOptional: false),
            CRUDColumnSchema(name: "checksum", type: String.crudColumnType, isOptional: true),
        ],
        primaryKey: 1,
        relations: []
    )

    static func crudColumnIndex(of keyPath: PartialKeyPath<CRUDAppliedMigration>) -> Int? {
        switch keyPath {
        case \CRUDAppliedMigration.position: 0
        case \CRUDAppliedMigration.name: 1
        case \CRUDAppliedMigration.appliedAt: 2
        case \CRUDAppliedMigration.checksum: 3
        default: nil
        }
    }

    static func crudRelationIndex(of keyPath: PartialKeyPath<CRUDAppliedMigration>) -> Int? {
        nil
    }

    init(position: Int, name: String, appliedAt: Date, checksum: String?) {
        self.position = position
        self.name = name
        self.appliedAt = appliedAt
        self.checksum = checksum
    }

    init<Row: CRUDRowReader>(crudRow row: Row) throws {
        position = try row.read(0)
        name = try row.read(1)
        appliedAt = try row.read(2)
        checksum = try row.read(3)
    }

    func crudBindRow<Binder: CRUDBinder>(to binder: inout Binder, from position: Int) throws {
        try binder.bind(self.position, at: position)
        try binder.bind(name, at: position + 1)
        try binder.bind(appliedAt, at: position + 2)
        try binder.bind(checksum, at: position + 3)
    }

    func crudBindColumn<Binder: CRUDBinder>(_ column: Int, to binder: inout Binder, at position: Int) throws {
        switch column {
        case 0: try binder.bind(self.position, at: position)
        case 1: try binder.bind(name, at: position)
        case 2: try binder.bind(appliedAt, at: position)
        case 3: try binder.bind(checksum, at: position)
        default: throw CRUDEncoderError("crud_migrations has no column \(column)")
        }
    }
}

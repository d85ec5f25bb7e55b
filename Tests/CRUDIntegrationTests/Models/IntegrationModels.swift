import CRUD
import Foundation

// Joins of every kind: a pupil has courses (through enrollments), grades, and friends (pupils,
// through friendships).
struct Pupil: CRUDModel, Equatable {
    let id: Int
    var name: String
    var nickname: String?
    var courses: [Course]?
    var grades: [Grade]?
    var friends: [Pupil]?
}

struct Course: CRUDModel, Equatable {
    let id: Int
    var title: String
}

struct Enrollment: CRUDModel {
    let pupilId: Int
    let courseId: Int
}

/// A grade may belong to no pupil yet: NULL keys must never join.
struct Grade: CRUDModel, Equatable {
    let id: Int
    var pupilId: Int?
    var score: Int
}

struct Friendship: CRUDModel {
    let pupilId: Int
    let friendId: Int
}

/// Table and column names that are SQL keywords or hold quotes.
struct Awkward: CRUDModel, TableNameProvider, Equatable {
    enum CodingKeys: String, CodingKey {
        case id, group = "group", order = "order", quoted = "it's \"quoted\"", select, children
    }
    static let tableName = "order"

    let id: Int
    var group: String
    var order: Int
    var quoted: String?
    var select: Bool
    var children: [AwkwardChild]?
}

struct AwkwardChild: CRUDModel, TableNameProvider, Equatable {
    enum CodingKeys: String, CodingKey {
        case id, from = "from", where_ = "where"
    }
    static let tableName = "group by"

    let id: Int
    var from: Int
    var where_: String
}

// Two versions of one table, for `.reconcileTable`.
struct ItemV1: CRUDModel, TableNameProvider {
    static let tableName = "items"
    let id: Int
    var name: String
    var obsolete: String?
}

struct ItemV2: CRUDModel, TableNameProvider {
    static let tableName = "items"
    let id: Int
    var name: String
    var added: Int
    var addedText: String
    var addedOptional: Double?
    var addedDate: Date
}

/// The same table read with another column type, for reconcile's "never changes a type".
struct ItemRetyped: CRUDModel, TableNameProvider {
    static let tableName = "items"
    let id: Int
    var name: Int?
}

/// A table without an `id`: no primary key unless one is named.
struct Tag: CRUDModel, Equatable {
    var label: String
    var weight: Int
}

/// One text column, for reading single values with raw SQL.
struct TextValue: CRUDModel {
    let text: String
}

/// One integer column.
struct IntegerValue: CRUDModel {
    let value: Int
}

/// A nullable column read as non-optional, for decoding errors.
struct Strict: CRUDModel {
    let id: Int
    let name: String
}

/// A table with column defaults, made by raw SQL.
struct Defaults: CRUDModel {
    let id: Int?
    var name: String?
}

/// Joined on a nullable key.
struct Owner: CRUDModel {
    let id: Int
    var code: String?
    var pets: [Pet]?
}

struct Pet: CRUDModel {
    let id: Int
    var ownerCode: String?
}

/// The row `PRAGMA busy_timeout` returns.
struct BusyTimeout: CRUDModel {
    let timeout: Int
}

/// The PostgreSQL part of the Perfect-CRUD README's `returning` example.
struct ReturningItem: CRUDModel, Equatable {
    let id: UUID
    var def: Int?
    init(id: UUID, def: Int? = nil) {
        self.id = id
        self.def = def
    }
}

/// One column's type, as information_schema reports it.
struct ColumnType: CRUDModel {
    let column_name: String
    let data_type: String
}

struct Flag: CRUDModel {
    let id: Int
    let on: Bool
}

/// The rows `crud-test-probe commit` writes: ten per transaction.
struct Ledger: CRUDModel {
    let id: Int
    let transaction: Int
    let entry: Int
}

/// Constraints declared next to the models.
struct Rider: CRUDModel {
    let id: Int
    var name: String
}

struct Bike: CRUDModel {
    let id: Int
    var ownerId: Int?
    var keeperId: Int?
    var name: String
    var color: String
    var wheels: Int

    static let crudConstraints: [CRUDConstraint<Bike>] = [
        .foreignKey(\.ownerId, references: \Rider.id, onDelete: .cascade),
        .foreignKey(\.keeperId, references: \Rider.id, onDelete: .setNull, name: "bike_keeper"),
        .unique(\.name, \.color),
        .check("wheels BETWEEN 1 AND 3", name: "bike_wheels"),
    ]
}

/// A rack that refuses to lose its rider while it holds a bike of theirs.
struct Rack: CRUDModel {
    let id: Int
    var riderId: Int

    static let crudConstraints: [CRUDConstraint<Rack>] = [.foreignKey(\.riderId, references: \Rider.id, onDelete: .restrict)]
}

/// A row whose name is unique besides its key: an upsert by id meets both.
struct Label: CRUDModel, Equatable {
    let id: Int
    var name: String
    var n: Int

    static let crudConstraints: [CRUDConstraint<Label>] = [.unique(\.name)]
}

/// A locker whose rider, when deleted, leaves it to the column's default (NULL).
struct Locker: CRUDModel {
    let id: Int
    var riderId: Int?

    static let crudConstraints: [CRUDConstraint<Locker>] = [.foreignKey(\.riderId, references: \Rider.id, onDelete: .setDefault)]
}

struct BadConstraint: CRUDModel {
    let id: Int
    var name: String

    static let crudConstraints: [CRUDConstraint<BadConstraint>] = [.unique(\.name.count)]
}

/// Observed changes.
struct Cycle: CRUDModel, Equatable {
    let id: Int
    var color: String
    var gears: Int

    static let crudConstraints: [CRUDConstraint<Cycle>] = [.unique(\.color, \.gears)]
}

/// A row written last so that a test knows every change before it was delivered.
struct Marker: CRUDModel {
    let id: Int
}

/// A table whose key is not an integer: no row ids on PostgreSQL, but query observations see it.
struct Token: CRUDModel {
    let id: UUID
    var label: String
}

/// Aggregates over an optional column.
struct Reading: CRUDModel {
    let id: Int
    var value: Double?
    var label: String
}

/// A row with things to filter, order and page by.
struct Chore: CRUDModel, Equatable {
    let id: Int
    var owner: Int
    var title: String
    var done: Bool
    var priority: Int

    /// Not a column: what an update's key paths may not name.
    var headline: String { title.uppercased() }
}

/// A number that transactions read and write back changed.
struct Tally: CRUDModel, Equatable {
    let id: Int
    var value: Int
}

/// A parent that says how many children it has, which a writer keeps true in every transaction.
struct Shelf: CRUDModel, Equatable {
    let id: Int
    var bookCount: Int
    var books: [Book]?
}

struct Book: CRUDModel, Equatable {
    let id: Int
    var shelfId: Int
}

/// A row whose times CRUD keeps: `createdAt` once, `updatedAt` on every write.
struct Memo: CRUDModel, CRUDTimestamped, Equatable, Sendable {
    enum CodingKeys: String, CodingKey {
        case id, text, createdAt = "created_at", updatedAt = "updated_at"
    }

    let id: Int
    var text: String
    var createdAt: Date?
    var updatedAt: Date?
}

/// A repository in memory, for tests and previews: the same contract as `DatabaseRepository`
/// (errors, order by id, the timestamps of a `CRUDTimestamped` model), nothing stored on disk.
public actor InMemoryRepository<Model: CRUDIdentifiedModel & Sendable>: CRUDRepository where Model.CRUDID: Sendable {
    private var items: [Model.CRUDID: Model] = [:]

    /// An empty repository, or one holding `items`.
    public init(_ items: [Model] = []) {
        for item in items { self.items[item[keyPath: Model.crudIDKeyPath]] = item }
    }

    public func create(_ item: Model) async throws {
        let id = item[keyPath: Model.crudIDKeyPath]
        guard items[id] == nil else { throw CRUDRepositoryError.alreadyExists(id: "\(id)") }
        items[id] = Model.crudStampedForInsert([item])[0]
    }

    public func read(id: Model.CRUDID) async throws -> Model {
        guard let item = items[id] else { throw CRUDRepositoryError.recordNotFound(id: "\(id)") }
        return item
    }

    public func update(_ item: Model) async throws {
        let id = item[keyPath: Model.crudIDKeyPath]
        guard let stored = items[id] else { throw CRUDRepositoryError.recordNotFound(id: "\(id)") }
        items[id] = item.crudStampedForUpdate(keepingCreatedAtOf: stored)
    }

    public func delete(id: Model.CRUDID) async throws {
        guard items.removeValue(forKey: id) != nil else { throw CRUDRepositoryError.recordNotFound(id: "\(id)") }
    }

    public func readAll() async throws -> [Model] {
        try sorted()
    }

    public func read(page: Int, size: Int) async throws -> [Model] {
        try CRUDRepositoryError.validate(page: page, size: size)
        let all = try sorted()
        let (start, overflow) = page.multipliedReportingOverflow(by: size)
        guard !overflow, start < all.count else { return [] }
        return Array(all[start ..< Swift.min(start + size, all.count)])
    }

    public func exists(id: Model.CRUDID) async throws -> Bool {
        items[id] != nil
    }

    /// The items in the order a database sorts their ids: numbers by value, text and bytes by their
    /// bytes (SQLite's default collation; PostgreSQL sorts text by the database's collation).
    private func sorted() throws -> [Model] {
        let keyed = try items.map { (key: try CRUDDatabaseValue($0.key), item: $0.value) }
        return keyed.sorted { $0.key.sortsBefore($1.key) }.map(\.item)
    }
}

extension CRUDDatabaseValue {
    /// Order between values of one column type, as a database sorts them.
    fileprivate func sortsBefore(_ other: CRUDDatabaseValue) -> Bool {
        switch (self, other) {
        case let (.integer(a), .integer(b)): a < b
        case let (.real(a), .real(b)): a < b
        case let (.text(a), .text(b)): a.utf8.lexicographicallyPrecedes(b.utf8)
        case let (.blob(a), .blob(b)): a.lexicographicallyPrecedes(b)
        case let (.bool(a), .bool(b)): !a && b
        case let (.date(a), .date(b)): a < b
        case let (.uuid(a), .uuid(b)): withUnsafeBytes(of: a.uuid) { x in withUnsafeBytes(of: b.uuid) { y in x.lexicographicallyPrecedes(y) } }
        default: false
        }
    }
}

/// A repository over a table of any database (SQLite, PostgreSQL): each operation is one statement
/// (or a short transaction) through the chain, by the model's `id`.
public struct DatabaseRepository<Model: CRUDIdentifiedModel & Sendable, C: DatabaseConfigurationProtocol>: CRUDRepository
    where Model.CRUDID: Sendable {
    /// The database the repository reads and writes.
    public let database: Database<C>

    /// The repository of `Model`'s table in `database` (create the table first).
    public init(_ database: Database<C>, of model: Model.Type = Model.self) {
        self.database = database
    }

    private var table: Table<Model, Database<C>> { database.table(Model.self) }

    private func matching(_ id: Model.CRUDID) -> Where<Model, Table<Model, Database<C>>> {
        table.where(Model.crudIDKeyPath == id)
    }

    public func create(_ item: Model) async throws {
        let id = item[keyPath: Model.crudIDKeyPath]
        do {
            try await table.insert(item)
        } catch let error as CRUDSQLExeError where error.kind == .uniqueViolation {
            // The id, or another unique column: only the first is "already exists".
            if try await exists(id: id) { throw CRUDRepositoryError.alreadyExists(id: "\(id)") }
            throw error
        }
    }

    public func read(id: Model.CRUDID) async throws -> Model {
        guard let item = try await matching(id).first() else { throw CRUDRepositoryError.recordNotFound(id: "\(id)") }
        return item
    }

    public func update(_ item: Model) async throws {
        let id = item[keyPath: Model.crudIDKeyPath]
        guard try await matching(id).update(item).changedRows > 0 else { throw CRUDRepositoryError.recordNotFound(id: "\(id)") }
    }

    public func delete(id: Model.CRUDID) async throws {
        guard try await matching(id).delete().changedRows > 0 else { throw CRUDRepositoryError.recordNotFound(id: "\(id)") }
    }

    public func readAll() async throws -> [Model] {
        Array(try await table.order(by: Model.crudIDKeyPath).select())
    }

    public func read(page: Int, size: Int) async throws -> [Model] {
        try CRUDRepositoryError.validate(page: page, size: size)
        let (skip, overflow) = page.multipliedReportingOverflow(by: size)
        guard !overflow else { return [] }
        return Array(try await table.order(by: Model.crudIDKeyPath).limit(size, skip: skip).select())
    }

    public func exists(id: Model.CRUDID) async throws -> Bool {
        try await matching(id).exists()
    }
}

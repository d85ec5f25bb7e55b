/// The repository of the CRUD pattern: application code creates, reads, updates and deletes models
/// by identifier through this protocol, and the store behind it is chosen in one line:
///
///     let bicycles: any CRUDRepository<Bicycle> = DatabaseRepository(db)   // or InMemoryRepository()
///
/// The identifier is the model's `id`, of its own type (`Int`, `UUID`, `String`, …).
public protocol CRUDRepository<Model>: Sendable {
    /// What the repository stores, identified by its `id`.
    associatedtype Model: CRUDIdentifiedModel & Sendable where Model.CRUDID: Sendable

    /// Stores a new item.
    /// - Throws: `CRUDRepositoryError.alreadyExists` when an item with its id is stored; the
    ///   store's own errors.
    func create(_ item: Model) async throws

    /// The item with `id`.
    /// - Throws: `CRUDRepositoryError.recordNotFound`; the store's own errors.
    func read(id: Model.CRUDID) async throws -> Model

    /// Replaces the stored item that has `item`'s id.
    /// - Throws: `CRUDRepositoryError.recordNotFound`; the store's own errors.
    func update(_ item: Model) async throws

    /// Removes the item with `id`.
    /// - Throws: `CRUDRepositoryError.recordNotFound`; the store's own errors.
    func delete(id: Model.CRUDID) async throws

    /// Every item, ordered by id.
    func readAll() async throws -> [Model]

    /// Page `page` (from 0) of `size` items, ordered by id; empty past the end.
    /// - Throws: `CRUDRepositoryError.invalidPage` for a negative page or a size below 1.
    func read(page: Int, size: Int) async throws -> [Model]

    /// Whether an item with `id` is stored.
    func exists(id: Model.CRUDID) async throws -> Bool
}

/// What a repository throws for the identifiers it is given, the same from every store.
public enum CRUDRepositoryError: Error, Equatable, CustomStringConvertible {
    /// No item has this id (as text).
    case recordNotFound(id: String)
    /// An item with this id (as text) is already stored.
    case alreadyExists(id: String)
    /// A page below 0 or a page size below 1.
    case invalidPage(page: Int, size: Int)

    public var description: String {
        switch self {
        case let .recordNotFound(id): "no record has id \(id)"
        case let .alreadyExists(id): "a record with id \(id) already exists"
        case let .invalidPage(page, size): "page \(page) of size \(size) does not exist: pages count from 0 and hold at least 1 item"
        }
    }

    static func validate(page: Int, size: Int) throws {
        guard page >= 0, size >= 1 else { throw invalidPage(page: page, size: size) }
    }
}

import CRUD

/// Someone with todos. The email is unique: a second user with it is a 409.
struct User: CRUDModel, Codable {
    let id: Int
    var name: String
    var email: String
    /// Filled by a join (`GET /users/:id`); `nil` when not joined.
    var todos: [Todo]?

    static let crudConstraints: [CRUDConstraint<User>] = [.unique(\.email)]
}

/// A thing to do, of one user: deleting the user deletes them. A deleted todo's id, which clients
/// hold in URLs, never names another todo, SQLite's included.
struct Todo: CRUDModel, Codable {
    let id: Int
    var userId: Int
    var title: String
    var done: Bool

    static let crudConstraints: [CRUDConstraint<Todo>] = [
        .foreignKey(\.userId, references: \User.id, onDelete: .cascade),
    ]
    static let crudIndexes: [CRUDIndex<Todo>] = [.index(\.userId)]
    static let crudNeverReusesKeys = true
}

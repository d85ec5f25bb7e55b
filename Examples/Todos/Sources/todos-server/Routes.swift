import CRUD
import Foundation
import Hummingbird

extension User: ResponseEncodable {}
extension Todo: ResponseEncodable {}

/// What `POST /users` takes: a user, and the first todo, written with it in one transaction.
struct NewUser: Decodable {
    var name: String
    var email: String
    var firstTodo: String?
}

/// What `POST /users/:id/todos` takes.
struct NewTodo: Decodable {
    var title: String
}

/// What `PATCH /todos/:id` takes: the fields to change.
struct TodoChanges: Decodable {
    var title: String?
    var done: Bool?
}

/// A page of a list, with how many there are in all.
struct Page<Item: Codable & Sendable>: ResponseEncodable {
    var items: [Item]
    var total: Int
}

/// The service's endpoints over one database.
struct TodosRoutes<C: DatabaseConfigurationProtocol> {
    let db: Database<C>

    func add(to router: Router<some RequestContext>) {
        router.get("health") { _, _ in
            try await db.ping()
            return "ok"
        }
        router.post("users") { request, context in
            let new = try await request.decode(as: NewUser.self, context: context)
            return try await EditedResponse(status: .created, response: createUser(new))
        }
        router.get("users/:id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            // `order` after a join orders each user's todos.
            let users = try db.table(User.self).join(\.todos, on: \.id, equals: \.userId).order(by: \Todo.id)
            guard let user = try await users.where(\User.id == id).first() else { throw HTTPError(.notFound) }
            return user
        }
        router.delete("users/:id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            let deleted = try await db.table(User.self).where(\User.id == id).delete().changedRows
            return deleted == 0 ? HTTPResponse.Status.notFound : .noContent
        }
        router.post("users/:id/todos") { request, context in
            let userId = try context.parameters.require("id", as: Int.self)
            let new = try await request.decode(as: NewTodo.self, context: context)
            let todo = try await db.table(Todo.self).returning(insert: Todo(id: 0, userId: userId, title: new.title, done: false), ignoreKeys: \.id)
            return EditedResponse(status: .created, response: todo)
        }
        router.get("todos") { request, _ in
            try await listTodos(done: request.uri.queryParameters.get("done", as: Bool.self),
                                page: max(1, request.uri.queryParameters.get("page", as: Int.self) ?? 1),
                                size: min(100, max(1, request.uri.queryParameters.get("size", as: Int.self) ?? 20)))
        }
        router.patch("todos/:id") { request, context in
            let id = try context.parameters.require("id", as: Int.self)
            let changes = try await request.decode(as: TodoChanges.self, context: context)
            return try await updateTodo(id, changes)
        }
        router.delete("todos/:id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            let deleted = try await db.table(Todo.self).where(\Todo.id == id).delete().changedRows
            return deleted == 0 ? HTTPResponse.Status.notFound : .noContent
        }
    }

    /// The user and the first todo, both or neither.
    func createUser(_ new: NewUser) async throws -> User {
        try await db.transaction { tx in
            var user = try await tx.table(User.self).returning(insert: User(id: 0, name: new.name, email: new.email), ignoreKeys: \.id)
            user.todos = []
            if let title = new.firstTodo {
                let todo = Todo(id: 0, userId: user.id, title: title, done: false)
                user.todos = [try await tx.table(Todo.self).returning(insert: todo, ignoreKeys: \.id)]
            }
            return user
        }
    }

    /// A page of todos in id order, all or those `done` says. The chain's `where` comes last, so
    /// the page and the count are two queries, each written for both cases.
    func listTodos(done: Bool?, page: Int, size: Int) async throws -> Page<Todo> {
        let todos = db.table(Todo.self)
        let page = todos.order(by: \.id).limit(size, skip: (page - 1) * size)
        if let done {
            return Page(items: try await page.where(\Todo.done == done).select().map { $0 }, total: try await todos.where(\Todo.done == done).count())
        }
        return Page(items: try await page.select().map { $0 }, total: try await todos.count())
    }

    /// The todo with the changes made, read and written in one transaction.
    func updateTodo(_ id: Int, _ changes: TodoChanges) async throws -> Todo {
        try await db.transaction { tx in
            guard var todo = try await tx.table(Todo.self).where(\Todo.id == id).first() else { throw HTTPError(.notFound) }
            if let title = changes.title { todo.title = title }
            if let done = changes.done { todo.done = done }
            // Without a `where`, Perfect-CRUD's `update` writes every row.
            try await tx.table(Todo.self).where(\Todo.id == id).update(todo)
            return todo
        }
    }
}

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
struct TodosRoutes {
    let db: AnyDatabase

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
        router.get("slow") { request, _ in
            let seconds = min(60, max(0, request.uri.queryParameters.get("seconds", as: Double.self) ?? 1))
            // Hummingbird goes on with a handler whose client has gone unless the handler asks it
            // not to: with this, the client's leaving cancels the task, and CRUD cancels the
            // statement on the server.
            return try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await slowReport(seconds: seconds)
            }
        }
        router.delete("todos/:id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            let deleted = try await db.table(Todo.self).where(\Todo.id == id).delete().changedRows
            return deleted == 0 ? HTTPResponse.Status.notFound : .noContent
        }
    }

    /// A statement that keeps the database busy for `seconds`: a stand-in for a slow report, to
    /// try timeouts, clients that go away, and shutdowns on. It may run past the service's
    /// statement timeout of 10 s, as a report may.
    func slowReport(seconds: Double) async throws -> String {
        try await db.withStatementTimeout(.seconds(70)) {
            if db.configuration.databaseSystem == "PostgreSQL" {
                try await db.sql("SELECT pg_sleep(\(db.placeholder(0)))", bindings: [.real(seconds)])
            } else {
                // SQLite has no sleep: it counts, about as long.
                try await db.sql("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(db.placeholder(0))) SELECT count(*) FROM n",
                                 bindings: [.integer(Int64(seconds * 3_000_000))])
            }
        }
        return "done after \(seconds) s"
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

    /// A page of todos in id order, all or those `done` says: one query for both, its conditions
    /// made from what the request gave.
    func listTodos(done: Bool?, page: Int, size: Int) async throws -> Page<Todo> {
        var conditions: [CRUDBooleanExpression] = []
        if let done { conditions.append(\Todo.done == done) }
        let found = try await db.table(Todo.self).order(by: \.id).where(conditions).page(page, size: size)
        return Page(items: found.items, total: found.total)
    }

    /// The todo with the fields the request sent changed, and only those (a concurrent change of
    /// another field stays), then read back, in one transaction.
    func updateTodo(_ id: Int, _ changes: TodoChanges) async throws -> Todo {
        var sent: [PartialKeyPath<Todo>] = []
        if changes.title != nil { sent.append(\Todo.title) }
        if changes.done != nil { sent.append(\Todo.done) }
        guard !sent.isEmpty else { throw HTTPError(.badRequest, message: "nothing to change") }
        let values = Todo(id: id, userId: 0, title: changes.title ?? "", done: changes.done ?? false)
        return try await db.transaction { tx in
            // Without a `where`, Perfect-CRUD's `update` writes every row.
            let todo = tx.table(Todo.self).where(\Todo.id == id)
            guard try await todo.update(values, setKeys: sent).changedRows == 1, let updated = try await todo.first() else {
                throw HTTPError(.notFound)
            }
            return updated
        }
    }
}

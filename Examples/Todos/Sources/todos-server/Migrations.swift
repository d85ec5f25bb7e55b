import CRUD

/// The schema's history: each step runs once per database, in order, under the migrator's lock,
/// so several instances starting at once migrate it once.
func migrate(_ db: AnyDatabase) async throws {
    var migrator = CRUDMigrator<AnyDatabaseConfiguration>()
    migrator.register("v1: users and todos") { db in
        try db.create(User.self)
        try db.create(Todo.self)
    }
    migrator.register("v2: todos by user") { db in try db.table(Todo.self).index(\.userId) }
    try await migrator.migrate(db)
}

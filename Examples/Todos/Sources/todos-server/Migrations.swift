import CRUD

/// The schema's history: the frozen steps `swift package crud-migrations generate` wrote into
/// `Migrations/`, each run once per database, in order, under the migrator's lock, so several
/// instances starting at once migrate it once; then the database is checked against the last step.
func migrate(_ db: AnyDatabase) async throws {
    var migrator = CRUDMigrator<AnyDatabaseConfiguration>()
    migrator.register(SchemaHistory.migrations)
    try await migrator.migrate(db)
    if let schema = migrator.schema { try await db.checkSchema(schema) }
}

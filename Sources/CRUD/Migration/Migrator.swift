import Foundation

/// Versioned schema changes, in the spirit of GRDB's `DatabaseMigrator` and Fluent's migrations:
/// named steps registered in order, each applied once, inside a transaction, and recorded in the
/// database's `crud_migrations` table.
///
///     var migrator = CRUDMigrator<SQLiteDatabaseConfiguration>()
///     migrator.register("create people") { db in try db.create(Person.self) }
///     migrator.register("index names") { db in try db.table(Person.self).index(\.name) }
///     try migrator.migrate(db)
///
/// A step may use the chain (`create`, `index`, constraints, inserts, updates) and raw `sql(…)`.
/// Steps never change once shipped: add a new step for each change.
public struct CRUDMigrator<C: DatabaseConfigurationProtocol>: Sendable {
    typealias Step = @Sendable (Database<C>) throws -> Void
    /// The steps in order, each with its checksum where it is a frozen step.
    private var steps: [(name: String, checksum: String?, step: Step)] = []
    /// The frozen steps among them, checked before anything is applied.
    private var frozen: [CRUDSchemaMigration] = []

    /// A migrator with no steps yet.
    public init() {}

    /// Adds a step after those registered so far. A name registered twice makes `migrate` throw
    /// `CRUDMigrationError.duplicateName` before it applies anything.
    public mutating func register(_ name: String, _ step: @escaping @Sendable (Database<C>) throws -> Void) {
        steps.append((name, nil, step))
    }

    /// Adds a frozen step, one that `crud-migrations` wrote, after those registered so far. Its name
    /// is the migration's; a migration whose schema is impossible (edited by hand into a state no
    /// database can have) makes `migrate` throw `CRUDMigrationError.invalidMigration` before it
    /// applies anything.
    public mutating func register(_ migration: CRUDSchemaMigration) {
        frozen.append(migration)
        steps.append((migration.name, migration.checksum, { db in try db.apply(migration) }))
    }

    /// Adds the first frozen step of a project whose databases were made before it had any (by
    /// `create`, or by hand-written steps registered before this one): on a database that has every
    /// table the step creates, each as the step's schema has it, the step is recorded as applied and
    /// changes nothing; on a new database it runs. A database with only some of the tables, or with
    /// tables that differ, fails the step with `CRUDSchemaMismatchError` naming every difference:
    /// bring it to the models first (`alterTable`, a hand-written step).
    public mutating func register(adopting migration: CRUDSchemaMigration) {
        frozen.append(migration)
        steps.append((migration.name, migration.checksum, { db in try db.apply(migration, adopting: true) }))
    }

    /// Adds frozen steps in their order: the generated history's `migrations`.
    public mutating func register(_ migrations: [CRUDSchemaMigration]) {
        for migration in migrations { register(migration) }
    }

    /// The schema the last frozen step registered leaves, to check a migrated database against
    /// (`Database.checkSchema(_:)`); `nil` before any is registered.
    public var schema: CRUDSchema? { frozen.last?.schema }

    /// The names of the steps applied to `db`, in order.
    /// - Throws: `CRUDSQLExeError`.
    public func appliedMigrations(_ db: Database<C>) throws -> [String] {
        try applied(db).map(\.name)
    }

    /// Applies the registered steps `db` has not had yet, in order, each in a transaction of its own
    /// together with its record: a step that throws is rolled back with everything it did, the steps
    /// before it stay applied, and the error is rethrown. On MySQL, where each schema change commits
    /// at once, a step runs without a transaction, and what a failed one did stays: the error is then
    /// `CRUDMigrationError.stepNotUndone`. Applying again does nothing. On SQLite,
    /// foreign keys are off during each step (so that `alterTable` can rebuild a referenced table)
    /// and every foreign key is checked before the step commits.
    /// - Returns: the names of the steps applied now.
    /// - Throws: `CRUDMigrationError` when the registered steps do not fit the database (a name
    ///   twice, an applied step no longer registered or in another place, a failed step not undone)
    ///   or a frozen step disagrees with itself (its schema is not what its changes make of the
    ///   frozen step's before it) or with what was applied under its name (its checksum), found
    ///   before anything is applied;
    ///   what a step throws;
    ///   `CRUDSQLExeError`, of kind `.foreignKeyViolation` when a step leaves a row referencing none.
    ///
    /// Migrators run one at a time, in threads, tasks or processes alike: on PostgreSQL and MySQL the
    /// whole run holds a database lock (an advisory lock, `GET_LOCK`), on SQLite each step's write
    /// transaction checks the step is not applied yet. Each step runs exactly once; the others wait,
    /// then skip it.
    @discardableResult
    @preconcurrency @available(*, noasync, message: "blocks its thread: in async code, call the async form with try await (top-level code picks this form even with await: call it from an async function)")
    public func migrate(_ db: Database<C>) throws -> [String] {
        try db.executor.holdingMigrationLock { try migrateSteps(db) }
    }

    /// The same for async code: the run, which waits for other migrators and holds connections
    /// across its steps, happens on a Dispatch thread, never on Swift's cooperative pool.
    /// - Returns: the names of the steps applied now.
    /// - Throws: as the synchronous form.
    @discardableResult
    public func migrate(_ db: Database<C>) async throws -> [String] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try self.migrate(db) }) }
        }
    }

    private func migrateSteps(_ db: Database<C>) throws -> [String] {
        var seen: Set<String> = []
        for (name, _, _) in steps where !seen.insert(name).inserted {
            throw CRUDMigrationError.duplicateName(name)
        }
        var previous = CRUDSchema([])
        for migration in frozen {
            let problems = migration.problems
            guard problems.isEmpty else { throw CRUDMigrationError.invalidMigration(name: migration.name, problems: problems) }
            let disagreements = migration.disagreements(after: previous)
            guard disagreements.isEmpty else { throw CRUDMigrationError.schemaDisagrees(name: migration.name, differences: disagreements) }
            previous = migration.schema
        }
        try recordsChecksums(db)
        let done = try applied(db)
        for (position, record) in done.enumerated() where position >= steps.count || steps[position].name != record.name {
            throw CRUDMigrationError.notRegistered(name: record.name, position: position)
        }
        for (position, record) in done.enumerated() {
            guard let checksum = steps[position].checksum else { continue }
            guard let recorded = record.checksum else {
                // Applied before checksums were recorded: what it says now is taken as what it said.
                var updated = record
                updated.checksum = checksum
                try db.table(CRUDAppliedMigration.self).where(\CRUDAppliedMigration.name == record.name).update(updated, setKeys: \.checksum)
                continue
            }
            guard recorded == checksum else {
                throw CRUDMigrationError.changedAfterApplied(name: record.name, recorded: recorded, registered: checksum)
            }
        }
        var appliedNow: [String] = []
        for (position, entry) in steps.enumerated().dropFirst(done.count) {
            let ran: Bool
            do {
                ran = try db.executor.schemaTransaction("migration \"\(entry.name)\"", tables: []) { _ throws -> Bool in
                    // Another process may have applied it since the list above was read.
                    guard try !db.table(CRUDAppliedMigration.self).where(\CRUDAppliedMigration.name == entry.name).exists() else {
                        return false
                    }
                    try entry.step(db)
                    try db.table(CRUDAppliedMigration.self).insert(CRUDAppliedMigration(position: position, name: entry.name, appliedAt: Date(),
                                                                                        checksum: entry.checksum))
                    return true
                }
            } catch let error as CRUDMigrationError {
                // Found before the step changed anything.
                throw error
            } catch where !db.executor.dialect.transactionalDDL {
                throw CRUDMigrationError.stepNotUndone(name: entry.name, database: db.executor.dialect.name, underlying: error)
            }
            if ran { appliedNow.append(entry.name) }
        }
        return appliedNow
    }

    /// Makes the record of applied steps, or gives one made before checksums were recorded its
    /// `checksum` column (another migrator may add it meanwhile, where no lock holds them apart).
    private func recordsChecksums(_ db: Database<C>) throws {
        try db.create(CRUDAppliedMigration.self)
        func hasChecksums() throws -> Bool {
            let table = CRUDAppliedMigration.crudSchema.name
            return try db.executor.readingCatalog(.write, { try $0.columns(ofTable: table) })?.contains { $0.name == "checksum" } ?? false
        }
        guard try !hasChecksums() else { return }
        do {
            try db.create(CRUDAppliedMigration.self, policy: .reconcileTable)
        } catch {
            guard try hasChecksums() else { throw error }
        }
    }

    private func applied(_ db: Database<C>) throws -> [CRUDAppliedMigration] {
        let table = CRUDAppliedMigration.crudSchema.name
        guard try db.executor.readingCatalog(.write, { try $0.columns(ofTable: table) }) != nil else { return [] }
        return try db.table(CRUDAppliedMigration.self).order(by: \.position).select().map { $0 }
    }
}

/// Why `CRUDMigrator.migrate` refused to run.
public enum CRUDMigrationError: Error, Equatable, CustomStringConvertible {
    /// Two steps are registered under this name.
    case duplicateName(String)
    /// The database had the step `name` applied at `position`, and the migrator has no such step
    /// there: it was renamed, removed or moved, or the database belongs to a newer version of the app.
    case notRegistered(name: String, position: Int)
    /// The step `name` failed with `underlying` (what it threw) on a database whose schema changes
    /// commit at once (MySQL): what it did before it failed stays, and it is not recorded as applied.
    case stepNotUndone(name: String, database: String, underlying: any Error)
    /// The frozen step `name` cannot be applied as written: its schema or its changes name what no
    /// database can have (`problems` says each); a generated step edited by hand, most often.
    case invalidMigration(name: String, problems: [String])
    /// The frozen step `name` says its changes leave a schema they do not make (`differences` says
    /// where), replayed over the schema of the frozen step before it: its file was edited by hand or
    /// merged badly. Applied, SQLite would rebuild its tables to the schema and drop what it lacks.
    case schemaDisagrees(name: String, differences: [String])
    /// The frozen step `name` was applied saying something else than the registered step says now
    /// (its checksum was `recorded`, and is `registered`): a step edited after it shipped.
    case changedAfterApplied(name: String, recorded: String, registered: String)
    /// The frozen step `name` retypes a column that holds a value the new type cannot hold
    /// exactly (`value` says which, and where): refused before the step changed anything, on every
    /// database alike. Change such values in a step before it, or state the conversion
    /// (`CRUDSchemaChange.convertColumn`).
    case lossyValue(name: String, CRUDLossyValue)

    /// Equal cases; steps not undone are equal by name, database and the description of what they threw.
    public static func == (lhs: CRUDMigrationError, rhs: CRUDMigrationError) -> Bool {
        switch (lhs, rhs) {
        case let (.duplicateName(a), .duplicateName(b)): a == b
        case let (.notRegistered(a, p), .notRegistered(b, q)): a == b && p == q
        case let (.stepNotUndone(a, x, e), .stepNotUndone(b, y, f)): a == b && x == y && String(describing: e) == String(describing: f)
        case let (.invalidMigration(a, p), .invalidMigration(b, q)), let (.schemaDisagrees(a, p), .schemaDisagrees(b, q)): a == b && p == q
        case let (.changedAfterApplied(a, x, y), .changedAfterApplied(b, z, w)): a == b && x == z && y == w
        case let (.lossyValue(a, x), .lossyValue(b, y)): a == b && x == y
        default: false
        }
    }

    public var description: String {
        switch self {
        case let .duplicateName(name):
            "the migration \"\(name)\" is registered twice; give each step a name of its own"
        case let .notRegistered(name, position):
            "the database has the migration \"\(name)\" applied as step \(position + 1), which this migrator does not register there: "
                + "steps must not be renamed, removed or reordered once applied (or the database was migrated by a newer version)"
        case let .stepNotUndone(name, database, error):
            "the migration \"\(name)\" failed (\(String(describing: error))), and \(database) commits every schema change at once, so what the step did "
                + "before it failed stays; it is not recorded as applied: undo its changes by hand (or make it able to run again), then migrate again"
        case let .invalidMigration(name, problems):
            "the migration \"\(name)\" cannot be applied as written, and nothing was applied: " + problems.joined(separator: "; ")
                + " (restore the generated file, or generate it again)"
        case let .schemaDisagrees(name, differences):
            "the migration \"\(name)\" says its changes leave a schema they do not make, and nothing was applied: "
                + differences.joined(separator: "; ") + " (restore the generated file, or generate the step again from the models)"
        case let .lossyValue(name, value):
            "the migration \"\(name)\" changes a column's type, and \(value): the database would round it, so the step was refused "
                + "before it changed anything. Change such values in a step before it, or state the conversion in the step: "
                + ".convertColumn(from: …, to: …, table: …, by: .rounding)"
        case let .changedAfterApplied(name, recorded, registered):
            "the migration \"\(name)\" was applied as it was then (checksum \(recorded)) and says something else now (\(registered)), "
                + "and nothing was applied: a step must not change once applied; restore it as it was, and make the change as a new step"
        }
    }
}

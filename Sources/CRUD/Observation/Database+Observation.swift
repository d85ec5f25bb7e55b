// Sqlable's change observation, and async sequences of changes and of query results.
//
// Observers hear of committed changes only: a change is reported once, after the transaction that
// made it commits (right after the statement, outside a transaction), in the order it was made; a
// change that is rolled back (with its transaction, its savepoint or its failing statement) is never
// reported. Observers are called one at a time on a queue of the library's, never on the writer's
// thread: a slow observer delays the observers after it, not the writes. What an observer throws
// goes to `didFail`; the other observers still get their changes.
//
// What is seen: on SQLite every row change the database's connections make, through the chain or
// raw `sql(…)`, foreign-key cascades included (SQLite's update hook). On PostgreSQL the inserts,
// updates and deletes the chain makes through this database and its children (the chain's writes
// then return the ids of their rows); raw `sql(…)`, cascades and other programs are not seen.
// Row ids are integers: SQLite's rowid (an integer primary key is the rowid), PostgreSQL's `id`
// column when it is an integer. A PostgreSQL table whose `id` is not an integer reports no row
// changes, but query observations (`observe(tracking:)`) still see that it changed.

extension Database {
    /// Sqlable's update callback: called with the table, the row's id and the kind of change, for
    /// every committed change in the database. Called on the library's observation queue; what it
    /// throws goes to `didFail`.
    public var didUpdate: (@Sendable (_ table: String, _ id: Int, _ change: CRUDChangeKind) throws -> Void)? {
        get { executor.observation.updateHandler }
        nonmutating set { executor.observation.updateHandler = newValue }
    }

    /// Calls `body` with the id of each row of `type`'s table that a committed transaction inserts,
    /// updates or deletes (`kind`), or only of row `id`.
    /// - Returns: the registration; `cancel()` it to stop. Dropping it does not stop the observer.
    @discardableResult
    public func observe<T: CRUDModel>(_ kind: CRUDChangeKind, on type: T.Type, id: Int? = nil,
                                      _ body: @escaping @Sendable (_ id: Int) throws -> Void) -> CRUDObservation {
        executor.observation.add(.change(kind: kind, table: T.crudSchema.name, id: id) { try body($0.id) })
    }

    /// Calls `body` with the id of each row of `type`'s table (or only of row `id`) that a committed
    /// transaction changes in any way.
    /// - Returns: the registration; `cancel()` it to stop. Dropping it does not stop the observer.
    @discardableResult
    public func observe<T: CRUDModel>(on type: T.Type, id: Int? = nil,
                                      _ body: @escaping @Sendable (_ id: Int) throws -> Void) -> CRUDObservation {
        executor.observation.add(.change(kind: nil, table: T.crudSchema.name, id: id) { try body($0.id) })
    }

    /// The committed changes of `type`'s table, in order, from now on:
    /// `for await change in db.changes(of: Bicycle.self) { … }`. Every change is kept until the loop
    /// takes it; ending the loop (or cancelling its task) stops the observation. The sequence ends
    /// when the database shuts down.
    public func changes<T: CRUDModel>(of type: T.Type) -> AsyncStream<CRUDChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: CRUDChange.self)
        let registration = executor.observation.add(.change(kind: nil, table: T.crudSchema.name, id: nil) { continuation.yield($0) },
                                                    end: { continuation.finish() })
        continuation.onTermination = { _ in registration.cancel() }
        return stream
    }

    /// The value `fetch` reads from the database, now and again after every committed transaction
    /// that changes one of `tables`: what GRDB's `ValueObservation` gives apps.
    ///
    ///     for try await count in db.observe(tracking: [Bicycle.self]) { db in try await db.table(Bicycle.self).count() } { … }
    ///
    /// The first value comes at once. Changes that commit while `fetch` runs lead to one more run,
    /// not one each, and a loop slower than the database gets the newest value, so bursts coalesce;
    /// every value is read after the changes it follows committed. An error `fetch` throws ends the
    /// sequence with it; ending the loop stops the observation. The sequence ends when the database
    /// shuts down.
    public func observe<Value: Sendable>(tracking tables: [any CRUDModel.Type],
                                         _ fetch: @escaping @Sendable (Database) async throws -> Value) -> AsyncThrowingStream<Value, any Error> {
        executor.observeValue(tracking: Set(tables.map { $0.crudSchema.name })) { try await fetch(self) }
    }
}

extension SelectAble where OverAllForm: Sendable {
    /// The query's results, now and again after every committed transaction that changes a table it
    /// reads (its joins' too): `for try await bicycles in db.table(Bicycle.self).where(…).observe() { … }`.
    /// As `Database.observe(tracking:)`: bursts coalesce, an error ends the sequence.
    public func observe() -> AsyncThrowingStream<[OverAllForm], any Error> {
        executor.observeValue(tracking: plan.tables) { Array(try await self.select()) }
    }
}

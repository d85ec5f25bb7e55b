import Foundation

/// A query's results as an asynchronous sequence: `for try await person in query.select()`.
///
/// Rows are read in batches on a thread of the library's, never on Swift's cooperative pool, and
/// only as the loop asks for them, so a large result is never held whole. A database failure or a
/// row that does not fit the model is thrown by the loop. The query runs when iteration starts,
/// waiting for a connection without holding a thread; the connection goes back when the rows run
/// out, an error is thrown, the task is cancelled (the loop throws `CancellationError` at its next
/// row), or the loop is left.
public struct CRUDAsyncRows<Model: CRUDModel, Connection: CRUDConnection>: AsyncSequence, Sendable {
    public typealias Element = Model

    let executor: CRUDExecutor<Connection>
    let plan: CRUDQueryPlan

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: RowSource(executor: executor, plan: plan, bindings: CRUDBindings.current))
    }

    /// Reads the rows batch by batch as `next()` asks for them.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: RowSource<Model, Connection>
        var batch: [Model] = []
        var position = 0

        public mutating func next() async throws -> Model? {
            // A cancelled task's loop ends at its next row, and the connection goes back at once.
            if Task.isCancelled { try source.cancel() }
            if position == batch.count {
                batch = try await source.nextBatch()
                position = 0
                if batch.isEmpty { return nil }
            }
            defer { position += 1 }
            return batch[position]
        }
    }
}

/// The cursor behind `CRUDAsyncRows`, read a batch at a time on its connection's queue.
///
/// Its connection is leased by the task, suspended rather than blocking a thread, and held from the
/// first batch until the rows run out, an error is thrown, the task is cancelled, or the iterator
/// is dropped.
///
/// `@unchecked Sendable`: `cursor` and `finished` are touched only by `nextBatch()`, which the one
/// iterator calls a batch at a time, awaiting each (reading on the connection's serial queue, or
/// inline on the library's threads), and by `deinit`, when no batch can be running.
final class RowSource<Model: CRUDModel, Connection: CRUDConnection>: @unchecked Sendable {
    static var batchSize: Int { 256 }

    private let executor: CRUDExecutor<Connection>
    private let plan: CRUDQueryPlan
    /// The caller's transaction, if any: the rows are read inside it.
    private let bindings: CRUDBindings
    private var cursor: CRUDCursor<Model, Connection>?
    private var finished = false

    init(executor: CRUDExecutor<Connection>, plan: CRUDQueryPlan, bindings: CRUDBindings) {
        self.executor = executor
        self.plan = plan
        self.bindings = bindings
    }

    func nextBatch() async throws -> [Model] {
        guard !finished else { return [] }
        do {
            return try await executor.reporting {
                // A cancelled task stops reading, and its connection goes back now.
                try Task.checkCancellation()
                if cursor == nil { cursor = try await start() }
                let cursor = cursor!
                // On the library's threads (a task preferring `CRUDThreads`), reading inline is allowed.
                if CRUDThreadMarker.isMarked { return try fill(cursor) }
                return try await cursor.session.perform { SendableResult(value: try self.fill(cursor)) }.value
            }
        } catch {
            stop()
            throw error
        }
    }

    /// The cursor on the transaction's session, or on one the task waits for without a thread.
    private func start() async throws -> CRUDCursor<Model, Connection> {
        try plan.validate()
        let bound = CRUDBindings.$current.withValue(bindings) { executor.boundSession() }
        let session: CRUDSession<Connection>
        if let bound { session = bound } else { session = try await executor.lease(.read) }
        let make = { try CRUDCursor<Model, Connection>(executor: self.executor, plan: self.plan, limit: self.plan.limit,
                                                      session: session, leased: bound == nil) }
        if CRUDThreadMarker.isMarked { return try make() }
        return try await session.perform { SendableResult(value: try make()) }.value
    }

    private func fill(_ cursor: CRUDCursor<Model, Connection>) throws -> [Model] {
        try CRUDBindings.$current.withValue(bindings) {
            var batch: [Model] = []
            batch.reserveCapacity(Self.batchSize)
            // `next()` hands its own errors to `didFail`.
            while batch.count < Self.batchSize, let next = try cursor.next() { batch.append(next) }
            if batch.count < Self.batchSize { stop() }
            return batch
        }
    }

    /// The task was cancelled: the cursor finishes, and `CancellationError` is thrown.
    func cancel() throws {
        stop()
        throw CancellationError()
    }

    /// No more rows: the cursor finishes, giving its connection back.
    private func stop() {
        finished = true
        cursor = nil
    }
}

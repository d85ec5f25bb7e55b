import Foundation

/// A query's results as an asynchronous sequence: `for try await person in query.select()`.
///
/// Rows are read in batches on a thread of the library's, never on Swift's cooperative pool, and
/// only as the loop asks for them, so a large result is never held whole. A database failure or a
/// row that does not fit the model is thrown by the loop. The query runs when iteration starts; the
/// connection it holds goes back when the rows run out, an error is thrown, or the loop is left.
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

/// The cursor behind `CRUDAsyncRows`, read a batch at a time on its own queue.
///
/// `@unchecked Sendable`: `cursor` and `finished` are touched only by `fill()`, which the one
/// iterator calls a batch at a time, awaiting each: on `queue` (serial), or inline on the library's
/// threads.
final class RowSource<Model: CRUDModel, Connection: CRUDConnection>: @unchecked Sendable {
    static var batchSize: Int { 256 }

    private let executor: CRUDExecutor<Connection>
    private let plan: CRUDQueryPlan
    /// The caller's transaction, if any: the rows are read inside it.
    private let bindings: [CRUDBindings.Binding]
    private let queue = DispatchQueue(label: "CRUD.rows")
    private var cursor: CRUDCursor<Model, Connection>?
    private var finished = false

    init(executor: CRUDExecutor<Connection>, plan: CRUDQueryPlan, bindings: [CRUDBindings.Binding]) {
        self.executor = executor
        self.plan = plan
        self.bindings = bindings
    }

    func nextBatch() async throws -> [Model] {
        // On the library's threads (a task preferring `CRUDThreads`), reading inline is allowed.
        if CRUDThreadMarker.isMarked { return try fill() }
        let batch = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SendableResult<[Model]>, any Error>) in
            queue.async {
                continuation.resume(with: Result { SendableResult(value: try self.fill()) })
            }
        }
        return batch.value
    }

    private func fill() throws -> [Model] {
        guard !finished else { return [] }
        do {
            return try CRUDBindings.$current.withValue(bindings) { try executor.reporting {
                if cursor == nil { cursor = try CRUDCursor(executor: executor, plan: plan, limit: plan.limit) }
                var batch: [Model] = []
                batch.reserveCapacity(Self.batchSize)
                while batch.count < Self.batchSize, let next = try cursor!.next() { batch.append(next) }
                if batch.count < Self.batchSize {
                    finished = true
                    cursor = nil
                }
                return batch
            } }
        } catch {
            finished = true
            cursor = nil
            throw error
        }
    }
}

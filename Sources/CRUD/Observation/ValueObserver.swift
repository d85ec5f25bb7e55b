import Foundation

extension CRUDExecutor {
    /// The values `fetch` reads, now and after each committed batch that touches `tables`.
    func observeValue<Value: Sendable>(tracking tables: Set<String>,
                                       _ fetch: @escaping @Sendable () async throws -> Value) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let observer = CRUDValueObserver(fetch: fetch, continuation: continuation)
        // Registered before the first read, so a change that commits during it is not missed.
        let registration = observation.add(.batch(tables: tables) { observer.changed() }, end: { observer.end() })
        continuation.onTermination = { _ in
            registration.cancel()
            observer.stop()
        }
        observer.changed()
        return stream
    }
}

/// Runs a value observation's reads: one at a time, and once more after the current one when changes
/// came in meanwhile, however many.
///
/// `@unchecked Sendable`: `running`, `pending`, `stopped` and `task` are guarded by `lock`.
final class CRUDValueObserver<Value: Sendable>: @unchecked Sendable {
    private let fetch: @Sendable () async throws -> Value
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let lock = NSLock()
    private var running = false
    private var pending = false
    private var stopped = false
    private var task: Task<Void, Never>?

    init(fetch: @escaping @Sendable () async throws -> Value, continuation: AsyncThrowingStream<Value, any Error>.Continuation) {
        self.fetch = fetch
        self.continuation = continuation
    }

    /// A change touched the observed tables (or the observation starts): read again.
    func changed() {
        lock.withLock {
            guard !stopped else { return }
            guard !running else {
                pending = true
                return
            }
            running = true
            task = Task { await self.read() }
        }
    }

    private func read() async {
        repeat {
            do {
                continuation.yield(try await fetch())
            } catch {
                continuation.finish(throwing: error)
                return
            }
        } while lock.withLock {
            guard pending, !stopped else {
                running = false
                return false
            }
            pending = false
            return true
        }
    }

    func stop() {
        lock.withLock {
            stopped = true
            task?.cancel()
        }
    }

    /// The database shut down: no more reads, and the sequence ends.
    func end() {
        stop()
        continuation.finish()
    }
}

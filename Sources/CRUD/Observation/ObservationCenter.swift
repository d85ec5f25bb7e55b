import Foundation

/// The observers of one database (shared with its children) and the queue that calls them.
///
/// Writers hand each committed transaction's changes to `publish`, which only queues them: observers
/// run one batch after another on the center's own serial queue, never on a writer's thread, so a
/// slow observer delays other observers, not writes. Batches are delivered in the order they were
/// published, which on one connection is commit order.
///
/// `@unchecked Sendable`: `observers`, `ends`, `ended`, `nextID` and `didUpdate` are guarded by `lock`; delivery runs
/// on `queue` alone and calls observers without holding the lock, so an observer may register or
/// cancel observers (itself too) while it runs.
final class CRUDObservationCenter: @unchecked Sendable {
    /// What an observer receives: each change that matches it, or once per batch that touches one of
    /// its tables.
    enum Delivery {
        case change(kind: CRUDChangeKind?, table: String?, id: Int?, @Sendable (CRUDChange) throws -> Void)
        case batch(tables: Set<String>, @Sendable () -> Void)
    }

    private var observers: [(id: Int, delivery: Delivery)] = []
    /// What ends each observer that has an end (a stream's `finish`), by id.
    private var ends: [Int: @Sendable () -> Void] = [:]
    /// Set by `end()`: observers added afterwards end at once.
    private var ended = false
    private var nextID = 0
    private var didUpdate: (@Sendable (String, Int, CRUDChangeKind) throws -> Void)?
    private let lock = NSLock()
    private let queue = DispatchQueue(label: "CRUD.observation")
    /// Where an error an observer throws goes: the database's `didFail`.
    private let failures: CRUDFailureHandler

    /// Marks `queue`, so that `end` knows when an observer calls it.
    private static let onQueue = DispatchSpecificKey<Bool>()

    init(failures: CRUDFailureHandler) {
        self.failures = failures
        queue.setSpecific(key: Self.onQueue, value: true)
    }

    /// Whether anyone observes: writers record changes only then.
    var isActive: Bool {
        lock.withLock { !observers.isEmpty || didUpdate != nil }
    }

    var updateHandler: (@Sendable (String, Int, CRUDChangeKind) throws -> Void)? {
        get { lock.withLock { didUpdate } }
        set { lock.withLock { didUpdate = newValue } }
    }

    /// Adds an observer; it is called for batches published from now on. `end` ends it when the
    /// database shuts down (at once, if it has).
    func add(_ delivery: Delivery, end: (@Sendable () -> Void)? = nil) -> CRUDObservation {
        let id: Int? = lock.withLock {
            guard !ended else { return nil }
            nextID += 1
            observers.append((nextID, delivery))
            if let end { ends[nextID] = end }
            return nextID
        }
        guard let id else {
            end?()
            return CRUDObservation(center: self, id: 0)
        }
        return CRUDObservation(center: self, id: id)
    }

    /// Removes an observer: once this returns it is not called again (a call under way on the
    /// delivery queue finishes).
    func remove(_ id: Int) {
        lock.withLock {
            observers.removeAll { $0.id == id }
            ends[id] = nil
        }
    }

    /// Ends every observer, after the changes already published reach them: streams finish, and
    /// observers added later end at once. Calls `then` when they have ended (called by an
    /// observer, as soon as they are bound to).
    func end(then: @escaping @Sendable () -> Void) {
        lock.withLock { ended = true }
        let finish: @Sendable () -> Void = {
            let ends: [@Sendable () -> Void] = self.lock.withLock {
                defer {
                    self.observers = []
                    self.ends = [:]
                }
                return Array(self.ends.values)
            }
            for end in ends { end() }
        }
        // Behind the deliveries already queued. An observer shutting the database down is one of
        // them: the observers end after its batch, and it does not wait for that.
        if DispatchQueue.getSpecific(key: Self.onQueue) == true {
            queue.async(execute: finish)
            return then()
        }
        queue.async {
            finish()
            then()
        }
    }

    private func isRegistered(_ id: Int) -> Bool {
        lock.withLock { observers.contains { $0.id == id } }
    }

    /// Queues a committed transaction's changes for the observers.
    func publish(_ changes: [(kind: CRUDChangeKind, table: String, id: Int?)]) {
        guard !changes.isEmpty else { return }
        queue.async { self.deliver(changes) }
    }

    private func deliver(_ changes: [(kind: CRUDChangeKind, table: String, id: Int?)]) {
        let (registered, updateHandler) = lock.withLock { (observers, didUpdate) }
        for change in changes {
            guard let id = change.id else { continue }
            if let updateHandler {
                run { try updateHandler(change.table, id, change.kind) }
            }
            for observer in registered {
                guard case let .change(kind, table, wanted, body) = observer.delivery,
                      kind.map({ $0 == change.kind }) ?? true, table.map({ $0 == change.table }) ?? true,
                      wanted.map({ $0 == id }) ?? true, isRegistered(observer.id) else { continue }
                run { try body(CRUDChange(kind: change.kind, table: change.table, id: id)) }
            }
        }
        let touched = Set(changes.map(\.table))
        for observer in registered {
            guard case let .batch(tables, body) = observer.delivery, !tables.isDisjoint(with: touched), isRegistered(observer.id) else {
                continue
            }
            body()
        }
    }

    /// Calls an observer; what it throws goes to `didFail` and the log, and delivery goes on.
    private func run(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            CRUDLogging.log(.error, "an observer threw: \(error)")
            failures.current?(error)
        }
    }
}

/// A registered observer: `cancel()` removes it. Keep it as long as you want changes; dropping it
/// does not cancel (Sqlable's `observe` has no result to keep).
public final class CRUDObservation: Sendable {
    private let center: CRUDObservationCenter
    private let id: Int

    init(center: CRUDObservationCenter, id: Int) {
        self.center = center
        self.id = id
    }

    /// Stops the observer. Once this returns it is not called again, though a call under way on the
    /// delivery queue (from another thread) finishes; calling it from the observer itself is fine.
    public func cancel() {
        center.remove(id)
    }
}

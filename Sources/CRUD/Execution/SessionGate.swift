import Foundation

/// The lock that serializes the callers sharing a session (a transaction's body and its child
/// tasks, the one connection of an in-memory database or a child). A thread holds it as a
/// recursive lock (`lock()`, `unlock()`): a transaction's body runs its calls inside the hold of the
/// call that opened it. A task that awaits the server holds it across its suspensions
/// (`acquire()`, `release()`) without a thread: others wait for it, threads blocked, tasks suspended,
/// and are let in in the order they came, alternating between the two kinds.
///
/// A thread taking again a gate it holds (every call of a synchronous transaction's body) only
/// counts it in the thread's own `CRUDHeldGates`, without the lock.
///
/// Who goes next is decided by its state machine (`CRUDSessionGateMachine`); the gate blocks and
/// wakes the threads and suspends and resumes the tasks it says.
///
/// `@unchecked Sendable`: `machine` is guarded by `condition`, so it skips Swift's dynamic
/// exclusivity checks, which cost more than the lock itself on every statement of a transaction.
@usableFromInline
final class CRUDSessionGate: @unchecked Sendable {
    private let condition = NSCondition()
    @exclusivity(unchecked) private var machine = CRUDSessionGateMachine<UnsafeContinuation<Void, Never>>()

    @usableFromInline
    init() {}

    /// Runs `body` holding the gate on the calling thread, taken as `lock()` does: what every
    /// synchronous use of a shared session does, which finds the thread's holds once for both ends.
    @usableFromInline @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try CRUDHeldGates.withCurrent { held in
            if held.takeAgain(self) {
                // Not the last hold: nothing to hand over.
                defer { _ = held.giveBack(self) }
                return try body()
            }
            lockWaiting(held)
            defer { unlock(held) }
            return try body()
        }
    }

    /// Takes the gate for the calling thread, waiting while another thread or a task holds it; the
    /// thread holding it takes it again at once.
    @usableFromInline
    func lock() {
        CRUDHeldGates.withCurrent { held in
            if !held.takeAgain(self) { lockWaiting(held) }
        }
    }

    /// Takes the gate, which the thread does not hold, waiting while another thread or a task does.
    private func lockWaiting(_ held: CRUDHeldGates) {
        condition.lock()
        if !machine.threadArrives() {
            repeat { condition.wait() } while !machine.threadWoke()
        }
        condition.unlock()
        held.add(self)
    }

    /// Takes the gate for the calling thread if it is free (or the thread's) at once.
    func tryLock() -> Bool {
        CRUDHeldGates.withCurrent { held in
            if held.takeAgain(self) { return true }
            condition.lock()
            let taken = machine.threadTries()
            condition.unlock()
            if taken { held.add(self) }
            return taken
        }
    }

    /// Gives back one hold of the calling thread's.
    @usableFromInline
    func unlock() {
        CRUDHeldGates.withCurrent { unlock($0) }
    }

    private func unlock(_ held: CRUDHeldGates) {
        guard held.giveBack(self) else { return }
        condition.lock()
        perform(machine.threadReleases())
        condition.unlock()
    }

    /// Takes the gate for the current task, suspending while a thread or another task holds it.
    func acquire() async {
        if takeForTask(else: nil) { return }
        await withUnsafeContinuation { _ = takeForTask(else: $0) }
        joinHandOver()
    }

    /// After a task was handed the gate: takes the lock that its giver resumed it under, so that
    /// what the giver did before is seen to come first. A task resumed before it had suspended goes
    /// on without passing through the scheduler, whose hand-over ThreadSanitizer would see.
    private func joinHandOver() {
        condition.lock()
        condition.unlock()
    }

    /// Gives the gate to a task if it is its turn: at once, or else to `waiting` when it comes
    /// (resumed by whoever hands it over), or not at all without one. Whether the gate was taken.
    private func takeForTask(else waiting: UnsafeContinuation<Void, Never>?) -> Bool {
        condition.lock()
        let taken = machine.taskArrives(waiting: waiting)
        condition.unlock()
        if taken { waiting?.resume() }
        return taken
    }

    /// Gives back the current task's hold.
    func release() {
        condition.lock()
        perform(machine.taskReleases())
        condition.unlock()
    }

    /// Called holding `condition`, once the gate was given back: resumes the task it went to, under
    /// the lock (`joinHandOver()`), or wakes the waiting threads.
    private func perform(_ release: CRUDSessionGateMachine<UnsafeContinuation<Void, Never>>.Release) {
        switch release {
        case let .resume(task): task.resume()
        case .wakeThreads: condition.broadcast()
        case .nothing: break
        }
    }
}

/// The gates the current thread holds, with how many times over: a thread's own, kept in
/// thread-local storage, so a thread taking again a gate it holds needs no lock.
///
/// Not `Sendable`: each thread's list is used by that thread alone.
final class CRUDHeldGates {
    /// The gate the thread took last, and how many times over: nearly always the only one.
    @exclusivity(unchecked) private var innermost: ObjectIdentifier?
    @exclusivity(unchecked) private var innermostDepth = 0
    /// The gates it took before that one, and holds still, in the order taken.
    @exclusivity(unchecked) private var outer: [(gate: ObjectIdentifier, depth: Int)] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // The thread's list goes with the thread.
        pthread_key_create(&key) { CRUDHeldGates.release($0) }
        return key
    }()

    /// Optional on Linux, not on Darwin: taken as optional for both.
    private static func release(_ stored: UnsafeMutableRawPointer?) {
        if let stored { Unmanaged<CRUDHeldGates>.fromOpaque(stored).release() }
    }

    /// Runs `body` with the current thread's list, made at its first use. Lent, not retained: the
    /// thread keeps it until it ends.
    @inline(__always)
    static func withCurrent<T>(_ body: (CRUDHeldGates) throws -> T) rethrows -> T {
        var stored = pthread_getspecific(key)
        if stored == nil {
            stored = Unmanaged.passRetained(CRUDHeldGates()).toOpaque()
            pthread_setspecific(key, stored)
        }
        return try Unmanaged<CRUDHeldGates>.fromOpaque(stored!)._withUnsafeGuaranteedRef(body)
    }

    /// Counts one more hold of `gate` if the thread holds it already.
    @inline(__always)
    func takeAgain(_ gate: CRUDSessionGate) -> Bool {
        let id = ObjectIdentifier(gate)
        if innermost == id {
            innermostDepth += 1
            return true
        }
        guard let index = outer.lastIndex(where: { $0.gate == id }) else { return false }
        outer[index].depth += 1
        return true
    }

    /// The thread has taken `gate`.
    func add(_ gate: CRUDSessionGate) {
        if let innermost { outer.append((innermost, innermostDepth)) }
        innermost = ObjectIdentifier(gate)
        innermostDepth = 1
    }

    /// Counts one hold of `gate` fewer; `true` when that was the thread's last.
    @inline(__always)
    func giveBack(_ gate: CRUDSessionGate) -> Bool {
        let id = ObjectIdentifier(gate)
        if innermost == id {
            innermostDepth -= 1
            guard innermostDepth == 0 else { return false }
            if let (gate, depth) = outer.popLast() {
                innermost = gate
                innermostDepth = depth
            } else {
                innermost = nil
            }
            return true
        }
        guard let index = outer.lastIndex(where: { $0.gate == id }) else {
            preconditionFailure("a session's gate was given back by a thread that does not hold it")
        }
        outer[index].depth -= 1
        guard outer[index].depth == 0 else { return false }
        outer.remove(at: index)
        return true
    }
}

import Foundation

/// The lock that serializes the callers sharing a session (a transaction's body and its child
/// tasks, the one connection of an in-memory database or a child). A thread holds it as a
/// recursive lock (`lock()`, `unlock()`): a transaction's body runs its calls inside the hold of the
/// call that opened it. A task that awaits the server holds it across its suspensions
/// (`acquire()`, `release()`) without a thread: others wait for it, threads blocked, tasks suspended,
/// and are let in in the order they came, alternating between the two kinds.
///
/// `@unchecked Sendable`: every property is guarded by `condition`, so they skip Swift's dynamic
/// exclusivity checks, which cost more than the lock itself on every statement of a transaction.
@usableFromInline
final class CRUDSessionGate: @unchecked Sendable {
    private let condition = NSCondition()
    /// The thread holding the gate, and how many times over; `nil` and 0 when none does.
    @exclusivity(unchecked) private var owner: pthread_t?
    @exclusivity(unchecked) private var depth = 0
    /// Whether a task holds the gate.
    @exclusivity(unchecked) private var heldByTask = false
    /// Tasks waiting for the gate, first come first.
    @exclusivity(unchecked) private var tasks: [UnsafeContinuation<Void, Never>] = []
    @exclusivity(unchecked) private var nextTask = 0
    /// Threads waiting for the gate in `lock()`.
    @exclusivity(unchecked) private var threadsWaiting = 0
    /// Whether the gate went to a thread last, so that a task goes next when both kinds wait.
    @exclusivity(unchecked) private var lastWentToThread = false

    @usableFromInline
    init() {}

    private var isFree: Bool { depth == 0 && !heldByTask }
    private var tasksWaiting: Bool { nextTask < tasks.count }

    /// Takes the gate for the calling thread, waiting while another thread or a task holds it; the
    /// thread holding it takes it again at once.
    @usableFromInline
    func lock() {
        let me = pthread_self()
        condition.lock()
        defer { condition.unlock() }
        if depth > 0, let owner, pthread_equal(owner, me) != 0 {
            depth += 1
            return
        }
        // A task waiting goes first when the gate last went to a thread, so threads cannot starve it.
        if isFree, !(tasksWaiting && lastWentToThread) {
            take(for: me)
            return
        }
        threadsWaiting += 1
        while !isFree || (tasksWaiting && lastWentToThread) { condition.wait() }
        threadsWaiting -= 1
        take(for: me)
    }

    /// Takes the gate for the calling thread if it is free (or the thread's) at once.
    func tryLock() -> Bool {
        let me = pthread_self()
        condition.lock()
        defer { condition.unlock() }
        if depth > 0, let owner, pthread_equal(owner, me) != 0 {
            depth += 1
            return true
        }
        guard isFree, !tasksWaiting else { return false }
        take(for: me)
        return true
    }

    private func take(for thread: pthread_t) {
        owner = thread
        depth = 1
        lastWentToThread = true
    }

    /// Gives back one hold of the calling thread's.
    @usableFromInline
    func unlock() {
        condition.lock()
        depth -= 1
        guard depth == 0 else { return condition.unlock() }
        owner = nil
        let next = handOver()
        condition.unlock()
        next?.resume()
    }

    /// Takes the gate for the current task, suspending while a thread or another task holds it.
    func acquire() async {
        if takeForTask(else: nil) { return }
        await withUnsafeContinuation { _ = takeForTask(else: $0) }
    }

    /// Gives the gate to a task if it is its turn: at once, or else to `waiting` when it comes
    /// (resumed by whoever hands it over), or not at all without one. Whether the gate was taken.
    private func takeForTask(else waiting: UnsafeContinuation<Void, Never>?) -> Bool {
        condition.lock()
        // A thread woken to take the gate goes first, and tasks that came earlier do.
        if isFree, threadsWaiting == 0 || lastWentToThread, !tasksWaiting {
            heldByTask = true
            lastWentToThread = false
            condition.unlock()
            waiting?.resume()
            return true
        }
        if let waiting { tasks.append(waiting) }
        condition.unlock()
        return false
    }

    /// Gives back the current task's hold.
    func release() {
        condition.lock()
        heldByTask = false
        let next = handOver()
        condition.unlock()
        next?.resume()
    }

    /// Called holding `condition` once the gate is free: gives it to the next waiting task, which
    /// the caller resumes outside the lock, or wakes the waiting threads.
    private func handOver() -> UnsafeContinuation<Void, Never>? {
        if tasksWaiting, threadsWaiting == 0 || lastWentToThread {
            let next = tasks[nextTask]
            nextTask += 1
            if nextTask == tasks.count {
                tasks.removeAll(keepingCapacity: true)
                nextTask = 0
            }
            heldByTask = true
            lastWentToThread = false
            return next
        }
        if threadsWaiting > 0 { condition.broadcast() }
        return nil
    }
}

/// The decisions of a session gate (`CRUDSessionGate`): who holds it, who waits, who goes next.
/// Events come in as calls; what to do comes back as a value (`Release`), which the gate performs.
/// No locks, no threads: every order of threads and tasks can be tested without either.
///
/// One holder at a time, a thread or a task. When both kinds wait they alternate, so that neither
/// starves the other: a task waiting goes first when the gate last went to a thread, a thread
/// woken to take it goes first when it last went to a task. Tasks are served in the order they came.
/// `Waiter` is how a waiting task is resumed (its continuation; a number in the tests).
struct CRUDSessionGateMachine<Waiter> {
    /// What to do once the holder has given the gate back.
    enum Release {
        /// The gate went to this waiting task: resume it.
        case resume(Waiter)
        /// Threads wait and it is their turn: wake them; the first to look takes it.
        case wakeThreads
        /// Nobody waits.
        case nothing
    }

    /// Whether a thread holds the gate (how many times over, its `CRUDHeldGates` knows).
    private(set) var heldByThread = false
    /// Whether a task holds the gate.
    private(set) var heldByTask = false
    /// Tasks waiting for the gate, first come first, from `nextTask` on.
    private var tasks: [Waiter] = []
    private var nextTask = 0
    /// Threads waiting for the gate.
    private(set) var threadsWaiting = 0
    /// Whether the gate went to a thread last, so that a task goes next when both kinds wait.
    private var lastWentToThread = false

    var isFree: Bool { !heldByThread && !heldByTask }
    var tasksWaiting: Int { tasks.count - nextTask }

    /// Whether a thread may take the gate now: it is free, and no task waits whose turn it is.
    private var threadMayTake: Bool { isFree && (tasksWaiting == 0 || !lastWentToThread) }

    // MARK: - Threads

    /// A thread asks for the gate: `true` when it takes it now; else it waits, and asks again with
    /// `threadWoke()` each time it is woken.
    mutating func threadArrives() -> Bool {
        if threadMayTake {
            takeForThread()
            return true
        }
        threadsWaiting += 1
        return false
    }

    /// A waiting thread was woken: `true` when it takes the gate; else it waits again.
    mutating func threadWoke() -> Bool {
        guard threadMayTake else { return false }
        threadsWaiting -= 1
        takeForThread()
        return true
    }

    /// A thread takes the gate only if it is free and no task waits: `true` when it did.
    mutating func threadTries() -> Bool {
        guard isFree, tasksWaiting == 0 else { return false }
        takeForThread()
        return true
    }

    /// The thread holding the gate gives it back (its last hold).
    mutating func threadReleases() -> Release {
        precondition(heldByThread, "a session's gate was given back by a thread while no thread held it")
        heldByThread = false
        return handOver()
    }

    private mutating func takeForThread() {
        heldByThread = true
        lastWentToThread = true
    }

    // MARK: - Tasks

    /// A task asks for the gate: `true` when it takes it now. Else, with `waiting`, the task waits
    /// to be resumed (a `Release` names it); without, it has not queued and asks again.
    mutating func taskArrives(waiting: Waiter?) -> Bool {
        // A thread woken to take the gate goes first, and tasks that came earlier do.
        if isFree, threadsWaiting == 0 || lastWentToThread, tasksWaiting == 0 {
            heldByTask = true
            lastWentToThread = false
            return true
        }
        if let waiting { tasks.append(waiting) }
        return false
    }

    /// The task holding the gate gives it back.
    mutating func taskReleases() -> Release {
        precondition(heldByTask, "a session's gate was given back by a task while no task held it")
        heldByTask = false
        return handOver()
    }

    /// The gate is free: to the next waiting task if it is its turn, else to the waiting threads.
    private mutating func handOver() -> Release {
        if tasksWaiting > 0, threadsWaiting == 0 || lastWentToThread {
            let next = tasks[nextTask]
            nextTask += 1
            if nextTask == tasks.count {
                tasks.removeAll(keepingCapacity: true)
                nextTask = 0
            }
            heldByTask = true
            lastWentToThread = false
            return .resume(next)
        }
        return threadsWaiting > 0 ? .wakeThreads : .nothing
    }
}

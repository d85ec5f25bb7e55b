import Foundation

/// What a shutdown's wait for the calls under way decides, as a state machine: it waits for the
/// pool to drain until the grace period ends; then it interrupts the calls still running, again
/// every `interval` (a call between two statements cannot be interrupted until it runs the next),
/// until they end or `window` has passed. It does no I/O: each event returns what to do, which
/// `CRUDDrain` does outside its lock.
struct ShutdownDrain {
    typealias Instant = ContinuousClock.Instant

    /// How the wait ended.
    enum Outcome: Equatable {
        /// The calls ended within the grace period.
        case drained
        /// `running` calls were still running at its end and were interrupted; `drained` tells
        /// whether they had ended when the wait gave up.
        case interrupted(running: Int, drained: Bool)
    }

    enum Action: Equatable {
        case none
        /// Fire `timerFired` at this instant.
        case arm(Instant)
        /// Interrupt the leased sessions, report how many with `interrupted(_:)`, and fire
        /// `timerFired` at the instant.
        case interrupt(thenAt: Instant)
        /// The wait is over.
        case finish(Outcome)
    }

    private enum State {
        case waiting(graceEnds: Instant)
        /// `running` is nil until the first interrupt has reported; `drained`, that the pool
        /// drained meanwhile.
        case interrupting(running: Int?, until: Instant, drained: Bool)
        case finished
    }

    private var state: State
    let window: Duration
    let interval: Duration

    /// Starts waiting at `now` for `gracePeriod`; the first action arms its end.
    init(now: Instant, gracePeriod: Duration, window: Duration, interval: Duration) {
        state = .waiting(graceEnds: now + gracePeriod)
        self.window = window
        self.interval = interval
    }

    /// The action the wait starts with.
    var firstAction: Action {
        guard case .waiting(let graceEnds) = state else { return .none }
        return .arm(graceEnds)
    }

    /// The pool has drained: no call runs any more.
    mutating func drained() -> Action {
        switch state {
        case .waiting:
            state = .finished
            return .finish(.drained)
        case .interrupting(let running?, _, _):
            state = .finished
            return .finish(.interrupted(running: running, drained: true))
        case .interrupting(nil, let until, _):
            state = .interrupting(running: nil, until: until, drained: true)
            return .none
        case .finished:
            return .none
        }
    }

    /// A timer armed by an action fired at `now`.
    mutating func timerFired(now: Instant) -> Action {
        switch state {
        case .waiting(let graceEnds):
            guard now >= graceEnds else { return .arm(graceEnds) }
            let until = now + window
            state = .interrupting(running: nil, until: until, drained: false)
            return .interrupt(thenAt: min(now + interval, until))
        case .interrupting(let running?, let until, _):
            guard now < until else {
                state = .finished
                return .finish(.interrupted(running: running, drained: false))
            }
            return .interrupt(thenAt: min(now + interval, until))
        case .interrupting(nil, _, _), .finished:
            // The first interrupt has not reported yet (it arms the next timer when it does), or
            // the wait is over.
            return .none
        }
    }

    /// An interrupt found `count` sessions leased; the first one's count is the number of calls
    /// the grace period left running.
    mutating func interrupted(_ count: Int) -> Action {
        guard case .interrupting(let running, let until, let drained) = state else { return .none }
        let first = running ?? count
        if drained {
            state = .finished
            return .finish(.interrupted(running: first, drained: true))
        }
        state = .interrupting(running: first, until: until, drained: false)
        return .none
    }
}

/// Runs a `ShutdownDrain` for a pool: its timers with `CRUDTimers`, its interrupts through `interrupt`,
/// and its outcome to whoever waits, a thread or a task (which does not hold a thread meanwhile).
/// Neither wait ends early for a cancelled task: a shutdown that gave up half-way would leave
/// connections open.
///
/// `@unchecked Sendable`: every property is guarded by `condition`.
final class CRUDDrain: @unchecked Sendable {
    private let condition = NSCondition()
    private var machine: ShutdownDrain
    /// How the wait ended, once it has.
    private var ended: ShutdownDrain.Outcome?
    private var waiting: [CheckedContinuation<ShutdownDrain.Outcome, Never>] = []
    private let interrupt: @Sendable () -> Int
    /// Where the interrupts run: one may wait for a round trip, which the timers' queue must not.
    private static let interrupts = DispatchQueue(label: "CRUD.shutdown.interrupts")

    /// A wait of `gracePeriod` from now, then the interrupts; its timer runs from `start()`.
    init(gracePeriod: Duration, window: Duration, interval: Duration = .milliseconds(20), interrupt: @escaping @Sendable () -> Int) {
        machine = ShutdownDrain(now: .now, gracePeriod: gracePeriod, window: window, interval: interval)
        self.interrupt = interrupt
    }

    /// Arms the end of the grace period, once the pool refuses new calls (so that no call leases a
    /// session after the interrupts), unless it has drained already.
    func start() {
        condition.lock()
        let action = machine.firstAction
        condition.unlock()
        perform(action)
    }

    /// The pool has drained.
    func drained() {
        condition.lock()
        let action = machine.drained()
        condition.unlock()
        perform(action)
    }

    /// Blocks the thread until the wait is over.
    func outcome() -> ShutdownDrain.Outcome {
        condition.lock()
        defer { condition.unlock() }
        while ended == nil { condition.wait() }
        return ended!
    }

    /// Suspends the task until the wait is over.
    func outcome() async -> ShutdownDrain.Outcome {
        await withCheckedContinuation { continuation in
            condition.lock()
            guard let ended else {
                waiting.append(continuation)
                return condition.unlock()
            }
            condition.unlock()
            continuation.resume(returning: ended)
        }
    }

    private func perform(_ action: ShutdownDrain.Action) {
        switch action {
        case .none:
            return
        case .arm(let instant):
            arm(instant)
        case .interrupt(let next):
            Self.interrupts.async {
                let count = self.interrupt()
                self.condition.lock()
                let then = self.machine.interrupted(count)
                self.condition.unlock()
                self.perform(then)
                self.arm(next)
            }
        case .finish(let finished):
            condition.lock()
            ended = finished
            let resumed = waiting
            waiting = []
            condition.broadcast()
            condition.unlock()
            for continuation in resumed { continuation.resume(returning: finished) }
        }
    }

    private func arm(_ instant: ContinuousClock.Instant) {
        // Weakly: the shutdown waiting for the outcome keeps the drain; a timer left after it ended
        // would keep it, and the pool its interrupts reach, until its time.
        CRUDTimers.after(instant - .now) { [weak self] in
            guard let self else { return }
            condition.lock()
            let action = machine.timerFired(now: .now)
            condition.unlock()
            perform(action)
        }
    }
}

@testable import CRUD
import Foundation
import Testing

/// The shutdown's wait for the calls under way, as a state machine driven by hand on a test clock
/// (instants given, none waited for), and its driver once with real timers.
@Suite("shutdown drain")
struct ShutdownDrainTests {
    let start = ContinuousClock.now
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func drain(grace: Int = 100, window: Int = 1000) -> ShutdownDrain {
        ShutdownDrain(now: start, gracePeriod: .milliseconds(grace), window: .milliseconds(window), interval: .milliseconds(20))
    }

    @Test("calls that end within the grace period: nothing is interrupted, and a late timer does nothing")
    func drainedInGrace() {
        var drain = drain()
        #expect(drain.firstAction == .arm(at(100)))
        #expect(drain.drained() == .finish(.drained))
        #expect(drain.timerFired(now: at(100)) == .none)
        #expect(drain.drained() == .none)
        #expect(drain.firstAction == .none, "a wait that is over arms nothing")
    }

    @Test("a timer that fires early re-arms the grace period's end")
    func earlyTimer() {
        var drain = drain()
        #expect(drain.timerFired(now: at(60)) == .arm(at(100)))
        #expect(drain.timerFired(now: at(100)) == .interrupt(thenAt: at(120)))
    }

    @Test("past the grace period: interrupted every interval until the calls end, and the first count is reported")
    func interruptedThenDrained() {
        var drain = drain()
        #expect(drain.timerFired(now: at(100)) == .interrupt(thenAt: at(120)))
        // Until the first interrupt reports, a timer has nothing to do (none is armed meanwhile).
        #expect(drain.timerFired(now: at(110)) == .none)
        #expect(drain.interrupted(3) == .none)
        #expect(drain.timerFired(now: at(120)) == .interrupt(thenAt: at(140)))
        #expect(drain.interrupted(1) == .none, "later counts do not replace the first")
        #expect(drain.drained() == .finish(.interrupted(running: 3, drained: true)))
        #expect(drain.timerFired(now: at(140)) == .none)
    }

    @Test("calls that never end: interrupted until the window closes, then the wait gives up")
    func neverDrained() {
        var drain = drain(grace: 100, window: 50)
        #expect(drain.timerFired(now: at(100)) == .interrupt(thenAt: at(120)))
        #expect(drain.interrupted(2) == .none)
        #expect(drain.timerFired(now: at(120)) == .interrupt(thenAt: at(140)))
        #expect(drain.timerFired(now: at(140)) == .interrupt(thenAt: at(150)), "the last interval ends with the window")
        #expect(drain.timerFired(now: at(150)) == .finish(.interrupted(running: 2, drained: false)))
        #expect(drain.drained() == .none, "a pool that drains after the wait gave up changes nothing")
    }

    @Test("the pool drains while the first interrupt runs: the wait ends when that interrupt reports")
    func drainedDuringFirstInterrupt() {
        var drain = drain()
        #expect(drain.timerFired(now: at(100)) == .interrupt(thenAt: at(120)))
        #expect(drain.drained() == .none)
        #expect(drain.interrupted(4) == .finish(.interrupted(running: 4, drained: true)))
        #expect(drain.timerFired(now: at(120)) == .none)
    }

    @Test("a grace period of zero arms its end now: the interrupts start at the first timer")
    func zeroGrace() {
        var drain = drain(grace: 0)
        #expect(drain.firstAction == .arm(at(0)))
        #expect(drain.timerFired(now: at(0)) == .interrupt(thenAt: at(20)))
    }

    @Test("the driver, with real timers: interrupts past a short grace period, and both waits get the outcome")
    func driver() async {
        let interrupts = Interrupts()
        let drain = CRUDDrain(gracePeriod: .milliseconds(10), window: .seconds(30)) { interrupts.interrupt() }
        interrupts.drain = drain
        drain.start()
        let outcome = await drain.outcome()
        #expect(outcome == .interrupted(running: 1, drained: true))
        #expect(interrupts.count == 3)
        let blockingWait: () -> ShutdownDrain.Outcome = drain.outcome
        #expect(blockingWait() == outcome, "the blocking wait gets the same outcome")
    }

    /// The interrupts of one leased session, whose call ends at the third, as a call interrupted
    /// between two statements ends at its next one: the pool then drains.
    final class Interrupts: @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var made = 0
        private var target: CRUDDrain?
        var count: Int { lock.withLock { made } }
        var drain: CRUDDrain? {
            get { lock.withLock { target } }
            set { lock.withLock { target = newValue } }
        }

        func interrupt() -> Int {
            let (count, drain) = lock.withLock { made += 1; return (made, target) }
            if count == 3 { drain?.drained() }
            return 1
        }
    }
}

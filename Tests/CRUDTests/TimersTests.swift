@_spi(CRUDDriver) @testable import CRUD
import Foundation
import Testing

/// The library's one timer facility fires on its own queue, not on Swift's cooperative pool.
@Suite("timers")
struct TimersTests {
    @Test("a timer fires after its delay, on a thread of its own; a cancelled one never fires")
    func firesOrIsCancelled() {
        let fired = DispatchSemaphore(value: 0)
        let cancelledFired = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        let cancelled = CRUDTimers.after(.milliseconds(10)) { cancelledFired.signal() }
        cancelled.cancel()
        CRUDTimers.after(.milliseconds(50)) { fired.signal() }
        #expect(fired.wait(timeout: .now() + 5) == .success, "the timer fired")
        #expect(ContinuousClock.now - started >= .milliseconds(50), "not before its delay")
        // The queue is serial, and the cancelled timer was due first: had it run, it would have by now.
        #expect(cancelledFired.wait(timeout: .now()) == .timedOut, "the cancelled timer did not fire")
    }

    @Test("timers fire while every thread of Swift's cooperative pool is blocked")
    func firesWhileCooperativePoolIsBlocked() async {
        let release = DispatchSemaphore(value: 0)
        let width = ProcessInfo.processInfo.activeProcessorCount
        // Every cooperative thread blocked (a test on a loaded pool looks like this for seconds).
        let blockers = (0 ..< width).map { _ in Task.detached { release.wait() } }
        let fired = DispatchSemaphore(value: 0)
        CRUDTimers.after(.milliseconds(20)) { fired.signal() }
        let onTime = fired.wait(timeout: .now() + 2) == .success
        for _ in blockers { release.signal() }
        for blocker in blockers { await blocker.value }
        #expect(onTime, "the timer fired while the cooperative pool was blocked")
    }
}

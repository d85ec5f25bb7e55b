@_spi(CRUDDriver) @testable import CRUD
import Foundation
import Testing

/// The library's one timer facility.
@Suite("timers")
struct TimersTests {
    /// Whether a timer fired. `@unchecked Sendable`: `fired` is guarded by `lock`.
    final class Fired: @unchecked Sendable {
        private let lock = NSLock()
        private var fired = false
        var value: Bool { lock.withLock { fired } }
        func set() { lock.withLock { fired = true } }
    }

    @Test("a timer fires after its delay; a cancelled one never fires")
    func firesOrIsCancelled() async {
        let cancelledFired = Fired()
        let started = ContinuousClock.now
        let cancelled = CRUDTimers.after(.milliseconds(10)) { cancelledFired.set() }
        cancelled.cancel()
        await withCheckedContinuation { (fired: CheckedContinuation<Void, Never>) in
            CRUDTimers.after(.milliseconds(50)) { fired.resume() }
        }
        #expect(ContinuousClock.now - started >= .milliseconds(50), "not before its delay")
        // The queue is serial, and the cancelled timer was due first: had it run, it would have by now.
        #expect(!cancelledFired.value, "the cancelled timer did not fire")
    }
}

import Dispatch

/// The library's one timer facility: what must happen after a delay (a pool wait's timeout, a
/// statement timeout, a timed socket wait, the end of a shutdown's grace period) fires on one
/// serial queue of the library's own, which Dispatch serves on time even while Swift's cooperative
/// pool is busy (a `Task.sleep` timer waited behind its blocked threads, seconds late under load).
/// What fires only marks state and hands work on: nothing that waits for I/O runs here. A cancelled
/// timer's closure is kept until its time comes: capture what it changes weakly.
///
/// For drivers: out of the user documentation.
@_spi(CRUDDriver) public enum CRUDTimers {
    private static let queue = DispatchQueue(label: "CRUD.timers")

    /// Runs `fire` on the timers' queue once `delay` has passed, unless the timer is cancelled first.
    @discardableResult
    public static func after(_ delay: Duration, _ fire: @escaping @Sendable () -> Void) -> CRUDTimer {
        let item = DispatchWorkItem(block: fire)
        let nanoseconds = Int(clamping: max(.zero, delay).nanoseconds)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: item)
        return CRUDTimer(item: item)
    }
}

/// A timer of `CRUDTimers`, to cancel.
@_spi(CRUDDriver) public struct CRUDTimer: @unchecked Sendable {
    // `@unchecked Sendable`: a work item is only cancelled through it, which Dispatch makes safe
    // from any thread.
    fileprivate let item: DispatchWorkItem

    /// The timer does not fire, unless it has already begun to.
    public func cancel() {
        item.cancel()
    }
}

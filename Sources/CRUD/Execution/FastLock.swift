#if os(Linux)
import Synchronization
#else
import os
#endif

/// A value behind the cheapest lock the platform has, for state that hot paths take for a few
/// instructions: Synchronization's `Mutex` on Linux (a futex, no call into Foundation), the unfair
/// lock on Apple's platforms (whose `Mutex` needs macOS 15).
final class CRUDFastLock<State: Sendable>: Sendable {
    #if os(Linux)
    private let mutex: Mutex<State>

    init(_ state: sending State) {
        mutex = Mutex(state)
    }

    /// Runs `body` with the state, holding the lock.
    func withLock<T: Sendable>(_ body: (inout State) -> T) -> T {
        mutex.withLock { body(&$0) }
    }
    #else
    private let lock: OSAllocatedUnfairLock<State>

    init(_ state: State) {
        lock = OSAllocatedUnfairLock(initialState: state)
    }

    /// Runs `body` with the state, holding the lock.
    func withLock<T: Sendable>(_ body: (inout State) -> T) -> T {
        lock.withLockUnchecked { body(&$0) }
    }
    #endif
}

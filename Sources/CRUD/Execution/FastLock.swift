#if os(Linux)
import Glibc
#else
import os
#endif

/// A value behind the cheapest lock the platform has, for state that hot paths take for a few
/// instructions: a bare pthread mutex on Linux (no call through Foundation; and, unlike
/// Synchronization's futex-based `Mutex`, one that ThreadSanitizer sees), the unfair lock on
/// Apple's platforms.
///
/// `@unchecked Sendable` on Linux: `state` is read and written only holding `mutex`.
final class CRUDFastLock<State: Sendable>: @unchecked Sendable {
    #if os(Linux)
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @exclusivity(unchecked) private var state: State

    init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state, holding the lock.
    func withLock<T>(_ body: (inout State) -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }
    #else
    private let lock: OSAllocatedUnfairLock<State>

    init(_ state: State) {
        lock = OSAllocatedUnfairLock(initialState: state)
    }

    /// Runs `body` with the state, holding the lock.
    func withLock<T>(_ body: (inout State) -> T) -> T {
        lock.withLockUnchecked { body(&$0) }
    }
    #endif
}

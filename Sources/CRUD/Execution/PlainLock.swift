import Foundation
#if os(Linux)
import Synchronization
#endif

/// A lock for state that a short-lived object guards (a call's `CRUDCancellation`, made for every
/// async call): on Linux, Synchronization's `Mutex`, stored inline, so making one allocates nothing
/// and taking it is one atomic operation; elsewhere an `NSLock` (`Mutex` needs macOS 15).
struct CRUDPlainLock: ~Copyable {
    #if os(Linux)
    private let mutex = Mutex(())
    #else
    private let lock = NSLock()
    #endif

    init() {}

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        #if os(Linux)
        try mutex.withLock { _ in try body() }
        #else
        try lock.withLock(body)
        #endif
    }
}

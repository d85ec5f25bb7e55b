import CRUD
import Foundation

/// Runs `body` on a new thread, outside any task, and returns its result to the awaiting task:
/// where a synchronous database call may block while it waits for a connection.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs a test body that blocks for long (on child processes, server restarts) on CRUD's threads,
/// in the calling task: Swift Testing runs synchronous tests on Swift's cooperative pool, which has
/// a thread per core, and two such tests would hold up every async test meanwhile.
func offCooperativePool<T>(_ body: () throws -> T) async throws -> T {
    guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else { return try body() }
    return try await withTaskExecutorPreference(CRUDThreads.shared) { try body() }
}

import Foundation
#if os(Linux)
import Synchronization
#else
import os
#endif

/// How many scopes of one kind are open, over every task and thread (`CRUDLogging.withLogger`,
/// `Database.withStatementTimeout`): read on every call, so that the calls made outside any such
/// scope skip looking for one in the task's bindings. Without a lock where the platform has atomics
/// (Linux's Synchronization; Apple's before macOS 15 have the unfair lock, nearly as cheap).
final class CRUDScopeCount: Sendable {
    #if os(Linux)
    private let count = Atomic<Int>(0)

    /// Whether any scope is open.
    var any: Bool { count.load(ordering: .relaxed) > 0 }

    private func add(_ amount: Int) { count.add(amount, ordering: .relaxed) }
    #else
    private let count = OSAllocatedUnfairLock(initialState: 0)

    var any: Bool { count.withLock { $0 > 0 } }

    private func add(_ amount: Int) { count.withLock { $0 += amount } }
    #endif

    /// Runs `body` as an open scope.
    func counting<T>(_ body: () throws -> T) rethrows -> T {
        add(1)
        defer { add(-1) }
        return try body()
    }

    /// The same for an async `body`.
    func counting<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        add(1)
        defer { add(-1) }
        return try await body()
    }
}

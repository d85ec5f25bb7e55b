import Foundation

/// Values that callbacks on other threads hand to a test. `@unchecked Sendable`: `collected` is
/// guarded by `lock`.
final class Collector<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [Element] = []

    func append(_ element: Element) {
        lock.withLock { collected.append(element) }
    }

    var items: [Element] { lock.withLock { collected } }

    var count: Int { lock.withLock { collected.count } }

    /// Waits until `done` holds for what was collected, up to `timeout`.
    /// - Returns: whether it held in time.
    func wait(timeout: Duration = .seconds(20), until done: ([Element]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if done(items) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return done(items)
    }
}

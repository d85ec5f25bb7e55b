import CoreMetrics
import Foundation

extension CRUDInstruments {
    /// The metrics of one database, made with the factory bootstrapped when it was opened.
    ///
    /// `@unchecked Sendable`: swift-metrics' handles are thread-safe; the tables made on demand,
    /// `statements` and `errorCounters`, are guarded by `lock`.
    final class Metrics: @unchecked Sendable {
        /// A statement operation's counter and timer.
        final class Statement: Sendable {
            let count: Counter
            let duration: CoreMetrics.Timer

            init(count: Counter, duration: CoreMetrics.Timer) {
                self.count = count
                self.duration = duration
            }

            func ran(nanoseconds: UInt64) {
                count.increment()
                duration.recordNanoseconds(Int64(clamping: nanoseconds))
            }
        }

        private let factory: any MetricsFactory
        private let dimensions: [(String, String)]
        let waitTime: CoreMetrics.Timer
        let usedConnections: Meter
        let idleConnections: Meter
        private let lock = NSLock()
        private var statements: [String: Statement] = [:]
        private var errorCounters: [String: Counter] = [:]

        init(factory: any MetricsFactory, system: String, pool: String) {
            self.factory = factory
            dimensions = [("db.system.name", system), ("db.client.connection.pool.name", pool)]
            waitTime = Timer(label: "db.client.connection.wait_time", dimensions: dimensions, factory: factory)
            usedConnections = Meter(label: "db.client.connection.count", dimensions: dimensions + [("db.client.connection.state", "used")],
                                    factory: factory)
            idleConnections = Meter(label: "db.client.connection.count", dimensions: dimensions + [("db.client.connection.state", "idle")],
                                    factory: factory)
        }

        /// The counter and timer of statements of `operation`.
        func statement(_ operation: String) -> Statement {
            lock.withLock {
                if let found = statements[operation] { return found }
                let operationDimensions = dimensions + [("db.operation.name", operation)]
                let made = Statement(count: Counter(label: "db.client.operations", dimensions: operationDimensions, factory: factory),
                                     duration: Timer(label: "db.client.operation.duration", dimensions: operationDimensions, factory: factory))
                statements[operation] = made
                return made
            }
        }

        /// The counter of errors of `type`.
        func errors(_ type: String) -> Counter {
            lock.withLock {
                if let found = errorCounters[type] { return found }
                let made = Counter(label: "db.client.errors", dimensions: dimensions + [("error.type", type)], factory: factory)
                errorCounters[type] = made
                return made
            }
        }
    }
}

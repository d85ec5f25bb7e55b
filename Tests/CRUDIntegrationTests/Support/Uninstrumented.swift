import CoreMetrics
import Tracing

/// Runs `body` with swift-metrics' and swift-distributed-tracing's no-op instruments, whatever the
/// calling task has bootstrapped. The test servers start, and make the connections that create each
/// test's database, through it: a configuration captures the task's instruments when it is made, and
/// a test that counts its own database's metrics or spans (`InstrumentationTests`) would otherwise
/// also get the server's, whenever it is the first test to ask that server for a database.
func uninstrumented<T>(_ body: () throws -> T) rethrows -> T {
    try withMetricsFactory(NOOPMetricsHandler.instance) {
        try withTracer(NoOpTracer()) { try body() }
    }
}

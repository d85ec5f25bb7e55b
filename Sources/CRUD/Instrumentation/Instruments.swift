import CoreMetrics
import Dispatch
import Foundation
import Tracing

/// The metrics and the tracer of one database, as the app bootstrapped them (or bound them to the
/// task, with swift-metrics' `withMetricsFactory` and swift-distributed-tracing's `withTracer`)
/// when the database was opened. An executor has none when neither is bootstrapped: then a
/// statement costs one `nil` check more than it would without them.
///
/// Metrics (swift-metrics), named after OpenTelemetry's database conventions where they have one:
/// - `db.client.operations`, a counter of statements by `db.operation.name` (`SELECT`, `INSERT`, …);
/// - `db.client.operation.duration`, a timer of statements by `db.operation.name`;
/// - `db.client.errors`, a counter of the errors thrown to callers by `error.type` (the kind of a
///   `CRUDSQLExeError`, `usage` for a `CRUDSQLGenError`, `migration`);
/// - `db.client.connection.wait_time`, a timer of how long callers waited for a connection;
/// - `db.client.connection.count`, meters of the pool's open connections by
///   `db.client.connection.state` (`idle`, `used`).
///
/// Every metric has the dimensions `db.system.name` and `db.client.connection.pool.name`.
///
/// Tracing: a client span per statement, named by its operation, with `db.system.name`,
/// `db.namespace`, `db.operation.name`, `db.query.text` (literals replaced by `?`),
/// `server.address` and `server.port`; and a span per transaction, which its statements are
/// children of. Spans are children of the task's `ServiceContext`, carried to the library's threads.
@usableFromInline
final class CRUDInstruments: Sendable {
    /// The tracer, unless it is swift-distributed-tracing's no-op one.
    let tracer: (any Tracer)?
    private let metrics: Metrics?
    /// The attributes every span has.
    private let peerAttributes: SpanAttributes

    /// The database's instruments, or `nil` when neither metrics nor tracing is bootstrapped.
    static func bootstrapped(system: String, peer: CRUDPeer, pool: String) -> CRUDInstruments? {
        let factory = MetricsSystem.factory
        let tracer = InstrumentationSystem.tracer
        let metered = !(factory is NOOPMetricsHandler)
        let traced = !(tracer is NoOpTracer)
        guard metered || traced else { return nil }
        return CRUDInstruments(tracer: traced ? tracer : nil,
                               metrics: metered ? Metrics(factory: factory, system: system, pool: pool) : nil,
                               system: system, peer: peer)
    }

    private init(tracer: (any Tracer)?, metrics: Metrics?, system: String, peer: CRUDPeer) {
        self.tracer = tracer
        self.metrics = metrics
        var attributes = SpanAttributes()
        attributes["db.system.name"] = system
        if let namespace = peer.namespace { attributes["db.namespace"] = namespace }
        if let address = peer.address { attributes["server.address"] = address }
        if let port = peer.port { attributes["server.port"] = port }
        peerAttributes = attributes
    }

    // MARK: - Statements

    /// A statement being measured: its operation, when it started, and its span.
    @usableFromInline
    struct Measurement {
        let operation: String
        let started: UInt64
        let span: (any Span)?
    }

    /// Starts measuring the statement `sql`.
    @usableFromInline
    func start(_ sql: String) -> Measurement {
        let operation = CRUDQueryText.operation(of: sql)
        var span: (any Span)?
        if let tracer {
            let started = tracer.startSpan(operation.isEmpty ? "statement" : operation, context: ServiceContext.current ?? .topLevel,
                                           ofKind: .client)
            var attributes = peerAttributes
            if !operation.isEmpty { attributes["db.operation.name"] = operation }
            attributes["db.query.text"] = CRUDQueryText.sanitized(sql)
            started.attributes = attributes
            span = started
        }
        return Measurement(operation: operation, started: metrics == nil ? 0 : DispatchTime.now().uptimeNanoseconds, span: span)
    }

    /// Ends the measurement of a statement, which failed with `error` unless it is `nil`.
    @usableFromInline
    func end(_ measurement: Measurement, error: (any Error)?) {
        if let metrics {
            metrics.statement(measurement.operation).ran(nanoseconds: DispatchTime.now().uptimeNanoseconds &- measurement.started)
        }
        if let span = measurement.span {
            if let error { Self.fail(span, with: error) }
            span.end()
        }
    }

    /// Runs the statement `sql` in `body`, measured; logs it as `CRUDLogging.statementRan` does,
    /// from `logged`.
    @usableFromInline
    func measure<T>(_ sql: String, loggedSince logged: UInt64, _ body: () throws -> T) throws -> T {
        let measurement = start(sql)
        defer { CRUDLogging.statementRan(sql, since: logged) }
        do {
            let result = try body()
            end(measurement, error: nil)
            return result
        } catch {
            end(measurement, error: error)
            throw error
        }
    }

    // MARK: - Transactions and context

    /// Runs `body`, a whole transaction, in a span of its own that the statements it runs are
    /// children of.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        guard let tracer else { return try body() }
        let span = transactionSpan(tracer)
        defer { span.end() }
        do {
            return try ServiceContext.withValue(span.context) { try body() }
        } catch {
            Self.fail(span, with: error)
            throw error
        }
    }

    /// The same for an async transaction.
    func transaction<T>(_ body: () async throws -> T) async throws -> T {
        guard let tracer else { return try await body() }
        let span = transactionSpan(tracer)
        defer { span.end() }
        do {
            return try await ServiceContext.withValue(span.context) { try await body() }
        } catch {
            Self.fail(span, with: error)
            throw error
        }
    }

    private func transactionSpan(_ tracer: any Tracer) -> any Span {
        let span = tracer.startSpan("transaction", context: ServiceContext.current ?? .topLevel, ofKind: .client)
        span.attributes = peerAttributes
        return span
    }

    /// `body`, made to run with the calling task's `ServiceContext` wherever it runs: a queue of
    /// the library's does not see the task's locals. As it is when nothing is traced.
    func carryingContext<T>(_ body: @escaping () throws -> T) -> () throws -> T {
        guard tracer != nil, let context = ServiceContext.current else { return body }
        return { try ServiceContext.withValue(context) { try body() } }
    }

    private static func fail(_ span: any Span, with error: any Error) {
        span.recordError(error)
        var attributes = span.attributes
        attributes["error.type"] = errorType(of: error)
        if let code = (error as? CRUDSQLExeError)?.code { attributes["db.response.status_code"] = code }
        span.attributes = attributes
        span.setStatus(SpanStatus(code: .error))
    }

    // MARK: - Errors and the pool

    /// Counts an error thrown to a caller.
    func thrown(_ error: any Error) {
        metrics?.errors(Self.errorType(of: error)).increment()
    }

    /// Records how long a caller waited for a connection, from `started` (a monotonic instant in
    /// nanoseconds, which `now` gives).
    func waited(since started: UInt64) {
        metrics?.waitTime.recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- started))
    }

    /// Whether the pool's counts are recorded: there are metrics.
    var countsConnections: Bool { metrics != nil }

    /// Records the pool's connections: `open` in all, `used` of them leased.
    func connections(open: Int, used: Int) {
        guard let metrics else { return }
        metrics.usedConnections.set(used)
        metrics.idleConnections.set(max(0, open - used))
    }

    /// Now, for `waited(since:)`.
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// How an error is named in metrics and traces (`error.type`).
    static func errorType(of error: any Error) -> String {
        switch error {
        case let error as CRUDSQLExeError: "\(error.kind)"
        case is CRUDSQLGenError: "usage"
        case is CRUDMigrationError: "migration"
        case is CancellationError: "cancelled"
        default: String(describing: type(of: error))
        }
    }
}

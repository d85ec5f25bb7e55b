import CoreMetrics
@_spi(CRUDDriver) import CRUD
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// Metrics through swift-metrics and spans through swift-distributed-tracing, on every backend. Each
/// test binds its own factory and tracer to the task while it opens its database (the database keeps
/// what was bootstrapped when it opened), so the suites running beside it record nothing here.
@Suite("metrics and tracing")
struct InstrumentationTests {
    /// The backend's `db.system.name`.
    static func systemName(_ backend: Backend) -> String {
        switch backend {
        case .sqlite: "sqlite"
        case .postgres: "postgresql"
        case .mysql: "mariadb"
        }
    }

    /// The total of the counters labelled `label` whose dimensions include `dimension`.
    static func total(_ metrics: TestMetrics, _ label: String, _ dimension: (String, String)) -> Int64 {
        metrics.counters(label: label).filter { $0.dimensions.contains { $0 == dimension } }.reduce(0) { $0 + $1.totalValue }
    }

    /// The values of the timers labelled `label` whose dimensions include `dimension`.
    static func durations(_ metrics: TestMetrics, _ label: String, _ dimension: (String, String)? = nil) -> [Int64] {
        metrics.timers(label: label).filter { timer in dimension.map { wanted in timer.dimensions.contains { $0 == wanted } } ?? true }
            .flatMap(\.values)
    }

    @Test("statements are counted and timed by operation, thrown errors counted by kind, waits for connections timed, connections counted",
          arguments: Backend.all)
    func metricsAreRecorded(_ backend: Backend) async throws {
        let metrics = TestMetrics()
        let configuration = try withMetricsFactory(metrics) { try backend.open() }
        try await metricsAreRecorded(configuration, metrics, backend)
    }

    func metricsAreRecorded<C: DatabaseConfigurationProtocol>(_ configuration: C, _ metrics: TestMetrics, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        let inserts = Self.total(metrics, "db.client.operations", ("db.operation.name", "INSERT"))
        for id in 1 ... 3 { try await db.table(Course.self).insert(Course(id: id, title: "course \(id)")) }
        #expect(Self.total(metrics, "db.client.operations", ("db.operation.name", "INSERT")) == inserts + 3)
        let insertDurations = Self.durations(metrics, "db.client.operation.duration", ("db.operation.name", "INSERT"))
        #expect(insertDurations.count >= 3)
        #expect(insertDurations.allSatisfy { $0 > 0 })
        #expect(try await db.table(Course.self).count() == 3)
        #expect(Self.total(metrics, "db.client.operations", ("db.operation.name", "SELECT")) >= 1)
        // Every metric names the database system.
        #expect(metrics.counters(label: "db.client.operations").allSatisfy { $0.dimensions.contains { $0 == ("db.system.name", Self.systemName(backend)) } })

        // A unique violation the app catches is still an error thrown to a caller: counted by kind.
        await #expect(throws: CRUDSQLExeError.self) { try await db.table(Course.self).insert(Course(id: 1, title: "again")) }
        #expect(Self.total(metrics, "db.client.errors", ("error.type", "uniqueViolation")) == 1)
        #expect(Self.total(metrics, "db.client.errors", ("error.type", "usage")) == 0)

        #expect(!Self.durations(metrics, "db.client.connection.wait_time").isEmpty)
        // Every lease came back: none in use, the ones opened idle.
        let used = try metrics.expectMeter("db.client.connection.count", Self.poolDimensions(metrics, state: "used"))
        let idle = try metrics.expectMeter("db.client.connection.count", Self.poolDimensions(metrics, state: "idle"))
        #expect(used.lastValue == 0)
        #expect((idle.lastValue ?? 0) >= 1)
        // While a transaction holds a connection, it is in use.
        try await db.transaction { tx in
            #expect(used.lastValue == 1)
            _ = try await tx.table(Course.self).count()
        }
        #expect(used.lastValue == 0)
        try await db.shutdown()
    }

    /// The dimensions of the pool's connection meter in `state`, as the recorded meters have them.
    static func poolDimensions(_ metrics: TestMetrics, state: String) throws -> [(String, String)] {
        try #require(metrics.meters(label: "db.client.connection.count").first { $0.dimensions.contains { $0 == ("db.client.connection.state", state) } })
            .dimensions
    }

    @Test("a span per statement, child of the task's context, with OpenTelemetry's database attributes and no values",
          arguments: Backend.all)
    func statementsAreTraced(_ backend: Backend) async throws {
        let tracer = InMemoryTracer()
        let configuration = try withTracer(tracer) { try backend.open() }
        try await statementsAreTraced(configuration, tracer, backend)
    }

    func statementsAreTraced<C: DatabaseConfigurationProtocol>(_ configuration: C, _ tracer: InMemoryTracer, _ backend: Backend) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        tracer.clearAll()
        let request = tracer.startSpan("GET /courses", context: .topLevel, ofKind: .server)
        try await ServiceContext.withValue(request.context) {
            try await db.table(Course.self).insert(Course(id: 7, title: "secret title"))
            _ = try await db.table(Course.self).where(\Course.title == "secret title").select()
        }
        request.end()
        let spans = tracer.finishedSpans
        let insert = try #require(spans.first { $0.operationName == "INSERT" })
        let select = try #require(spans.first { $0.operationName == "SELECT" })
        for span in [insert, select] {
            #expect(span.traceID == request.traceID)
            #expect(span.parentSpanID == request.spanID)
            #expect(span.kind == .client)
            #expect(span.attributes.get("db.system.name") == .string(Self.systemName(backend)))
            #expect(span.attributes.get("db.namespace") != nil)
            #expect(span.attributes.get("db.operation.name") == .string(span.operationName))
            #expect((backend == .sqlite) == (span.attributes.get("server.address") == nil))
            let text = try #require(span.attributes.get("db.query.text"))
            #expect(!"\(text)".contains("secret"))
            #expect("\(text)".uppercased().contains(span.operationName))
        }

        // A value written into raw SQL is left out of the trace.
        tracer.clearAll()
        _ = try await db.sql("SELECT id, title FROM \(db.quote("Course")) WHERE title = 'secret title' AND id = 7", Course.self)
        let raw = try #require(tracer.finishedSpans.first { $0.operationName == "SELECT" })
        let rawText = "\(try #require(raw.attributes.get("db.query.text")))"
        #expect(!rawText.contains("secret") && !rawText.contains("7"))
        #expect(rawText.contains("title = ? AND id = ?"))
        try await db.shutdown()
    }

    @Test("a transaction is a span its statements are children of; a failed statement's span says how it failed",
          arguments: Backend.all)
    func transactionsAndFailuresAreTraced(_ backend: Backend) async throws {
        let tracer = InMemoryTracer()
        let configuration = try withTracer(tracer) { try backend.open() }
        try await transactionsAndFailuresAreTraced(configuration, tracer)
    }

    func transactionsAndFailuresAreTraced<C: DatabaseConfigurationProtocol>(_ configuration: C, _ tracer: InMemoryTracer) async throws {
        let db = Database(configuration: configuration)
        try await db.create(Course.self, policy: .dropTable)
        tracer.clearAll()
        try await db.transaction { tx in
            try await tx.table(Course.self).insert(Course(id: 1, title: "one"))
            try await tx.table(Course.self).insert(Course(id: 2, title: "two"))
        }
        let transaction = try #require(tracer.finishedSpans.first { $0.operationName == "transaction" })
        let inside = tracer.finishedSpans.filter { $0.parentSpanID == transaction.spanID }
        #expect(inside.filter { $0.operationName == "INSERT" }.count == 2)
        #expect(inside.contains { $0.operationName == "COMMIT" })
        #expect(transaction.status == nil)

        // The same with the synchronous API, on this thread.
        tracer.clearAll()
        try Self.insertInTransaction(db, Course(id: 3, title: "three"))
        let syncTransaction = try #require(tracer.finishedSpans.first { $0.operationName == "transaction" })
        #expect(tracer.finishedSpans.contains { $0.operationName == "INSERT" && $0.parentSpanID == syncTransaction.spanID })

        tracer.clearAll()
        await #expect(throws: CRUDSQLExeError.self) {
            try await db.transaction { tx in try await tx.table(Course.self).insert(Course(id: 1, title: "again")) }
        }
        let failed = try #require(tracer.finishedSpans.first { $0.operationName == "INSERT" })
        #expect(failed.status?.code == .error)
        #expect(failed.attributes.get("error.type") == .string("uniqueViolation"))
        #expect(failed.errors.count == 1)
        let rolledBack = try #require(tracer.finishedSpans.first { $0.operationName == "transaction" })
        #expect(rolledBack.status?.code == .error)
        #expect(tracer.finishedSpans.contains { $0.operationName == "ROLLBACK" && $0.parentSpanID == rolledBack.spanID })
        try await db.shutdown()
    }

    static func insertInTransaction<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ course: Course) throws {
        try db.transaction(.default) { try db.table(Course.self).insert(course) }
    }
}

#if ServiceLifecycle
import CRUD
import CRUDServiceLifecycle
import Foundation
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

/// `DatabaseService`, built with the package's `ServiceLifecycle` trait (`.ci/run` turns it on).
extension ShutdownTests {
    @Test("DatabaseService runs until the service group's graceful shutdown, then shuts the database down; cancelled, it does not wait")
    func serviceLifecycle() async throws {
        let db = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        try await db.create(Course.self)
        try await testGracefulShutdown { trigger in
            let service = Task { try await DatabaseService(db).run() }
            try await Task.sleep(for: .milliseconds(50))
            try await db.table(Course.self).insert(Course(id: 1, title: "before"))
            #expect(try await db.table(Course.self).count() == 1, "the database runs while the service does")
            trigger.triggerGracefulShutdown()
            try await service.value
        }
        let refused = await #expect(throws: CRUDSQLExeError.self) { try await db.table(Course.self).count() }
        #expect(refused?.kind == .shutDown)

        // Cancelled while a statement runs (the group's bound passed before the database's turn):
        // the service returns normally at once, the statement is interrupted and fails with
        // .shutDown. It threw "still in use after the grace period of 0.0 seconds", and a service
        // group's run() rethrew it.
        let other = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        let long = CancellationTests.startTask { try await other.sql(CancellationTests.longStatement(.sqlite), ConnectionNumber.self) }
        try await Task.sleep(for: CancellationTests.running)
        let clock = ContinuousClock()
        let began = clock.now
        let service = Task { try await testGracefulShutdown { _ in try await DatabaseService(other).run() } }
        service.cancel()
        try await service.value
        #expect(clock.now - began < .seconds(3), "the cancelled service returned after \(clock.now - began)")
        let interrupted = await #expect(throws: CRUDSQLExeError.self) { _ = try await long.value }
        #expect(interrupted?.kind == .shutDown, "\(String(describing: interrupted))")
    }
}
#endif

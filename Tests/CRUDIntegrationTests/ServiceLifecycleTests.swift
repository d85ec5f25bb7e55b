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

        // Cancelled while a transaction holds a connection: the service ends without waiting for it.
        let other = Database(configuration: try Backend.sqliteConfiguration(busyTimeout: .seconds(30)))
        try await other.create(Course.self)
        let held = try await HeldTransaction(on: other)
        let service = Task { try await testGracefulShutdown { _ in try await DatabaseService(other).run() } }
        service.cancel()
        let ended = await #expect(throws: CRUDSQLExeError.self) { try await service.value }
        #expect(ended?.msg.contains("still in use") == true, "\(String(describing: ended))")
        try await held.release()
    }
}
#endif

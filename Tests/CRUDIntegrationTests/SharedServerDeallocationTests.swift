import CLibPQ
import CRUD
@testable import CRUDPostgres
import Foundation
import Testing

/// What a shared server connection does with the statements prepared on it across a reconnect,
/// driven through the group's own parts (which server connection a statement is prepared on, and
/// when one is broken, is the group's choice, out of reach of the public API).
@Suite("PostgreSQL shared server connections: deallocations across a reconnect",
       .enabled(if: !PostgresTestServer.isSkipped && !PostgresTestServer.throughPooler))
struct SharedServerDeallocationTests {
    @Test("a statement dropped while a server connection it was prepared on waits to connect again is not deallocated on the new session: no DEALLOCATE fails there",
          .timeLimit(.minutes(1)))
    func noDeallocationOnTheNewSession() async throws {
        let server = try PostgresTestServer.shared.get()
        // A database of its own: the server counts failed (rolled back) transactions by database.
        let name = "crud_deallocation_" + UUID().uuidString.prefix(8).lowercased()
        try server.createDatabase(name)
        let admin = Database(configuration: try PostgresDatabaseConfiguration(parameters: server.parameters))
        var parameters = server.parameters
        parameters["dbname"] = name
        parameters["application_name"] = name
        func backends() async throws -> Int {
            try await admin.sql("SELECT count(*)::bigint AS value FROM pg_stat_activity WHERE application_name = '\(name)'",
                                ConnectionNumber.self)[0].value
        }
        func waitForBackends(_ count: Int) async throws -> Bool {
            for _ in 0 ..< 200 {
                if try await backends() == count { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        var failure: (any Error)?
        do {
            // No repair on its own: the test reconnects each server connection through a session,
            // at the step it needs, however slowly the machine runs it.
            let group = PostgresServerConnections(limit: 2, parameters: parameters, expandDatabase: false, timeout: .seconds(10),
                                                  repairDelay: .seconds(600))
            let reader = try PostgresConnection(sharing: group)
            let holder = try PostgresConnection(sharing: group)
            #expect(try await waitForBackends(2))

            // Prepared on both server connections: on the first as it is made, on the second by a
            // read sent while the first is held.
            var statement: PostgresStatement? = try reader.prepareOwned("SELECT 1 AS one")
            try await holder.holding {
                let answer = try await reader.pipelined(statement!)
                #expect(answer != nil, "the read went to the other server connection")
                PQclear(answer?.result)
            }

            // The server ends both sessions; reads find them ended until no server connection takes
            // reads (the reads fail as lost meanwhile).
            try await admin.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
            #expect(try await waitForBackends(0))
            var noneTakesReads = false
            for _ in 0 ..< 10 where !noneTakesReads {
                do {
                    let answer = try await reader.pipelined(statement!)
                    noneTakesReads = answer == nil
                    PQclear(answer?.result)
                } catch let error as CRUDSQLExeError {
                    #expect(error.kind == .connectionLost, "\(error)")
                }
            }
            #expect(noneTakesReads)

            // One connects again for a session that holds it; the statement goes while the other
            // is still ended, and is queued for it at the next let-go.
            try await reader.holding { () async in }
            #expect(try await waitForBackends(1))
            statement = nil
            try await reader.holding { () async in }
            // The other connects again for the other session, held while the first is, and takes
            // reads (and what waits for it) once let go.
            try await reader.holding {
                try await holder.holding { () async in }
            }
            #expect(try await waitForBackends(2))
            try await Task.sleep(for: .milliseconds(200))
        } catch {
            failure = error
        }
        if failure == nil {
            // The sessions' backends, gone with the group, report their counts as they exit.
            #expect(try await waitForBackends(0))
            try await Task.sleep(for: .milliseconds(300))
            let failed = try await admin.sql("SELECT xact_rollback AS value FROM pg_stat_database WHERE datname = '\(name)'",
                                             ConnectionNumber.self)
            #expect(failed.first?.value == 0, "transactions that failed in \(name): \(failed)")
        }
        try await admin.sql("DROP DATABASE \"\(name)\" WITH (FORCE)")
        try await admin.shutdown()
        if let failure { throw failure }
    }
}

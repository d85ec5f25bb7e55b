@_spi(CRUDDriver) import CRUD
import CRUDTesting
import Foundation
import Testing

/// What `CRUDTesting` promises users: statements and bound values recorded, queued rows read as
/// models, mismatches and unknown keys reported as the database would.
@Suite("CRUDTesting")
struct RecordingConnectionTests {
    let db = recordingDatabase()
    var recorded: RecordingConnection { db.configuration.connection }

    @Test("a chain's SQL and bound values are recorded; queued rows come back as models")
    func recordsAndReads() throws {
        recorded.queuedRows = [[.integer(7), .text("Ann"), .integer(40)]]
        let people = try db.table(PersonForRecording.self).where(\PersonForRecording.age > 30).select().map { $0 }
        #expect(people == [PersonForRecording(id: 7, name: "Ann", age: 40)])
        #expect(recorded.executions.last?.bindings == [.integer(30)])
        #expect(recorded.statements.last?.contains("WHERE") == true)
        recorded.clear()
        #expect(recorded.executions.isEmpty)
    }

    @Test("a queued value of the wrong kind is a CRUDDecoderError naming the column, not a crash")
    func mismatch() throws {
        recorded.queuedRows = [[.text("seven"), .text("Ann")]]
        let error = #expect(throws: CRUDDecoderError.self) { try db.table(PersonForRecording.self).select() }
        #expect(error?.msg.contains("queued where an integer was read") == true)
    }

    @Test("an upsert finds its target among the keys declared for the table, else refuses before writing")
    func upsertKeys() throws {
        let person = PersonForRecording(id: 1, name: "Ann", age: 40)
        let refused = #expect(throws: CRUDSQLExeError.self) {
            try db.table(PersonForRecording.self).upsert(person, onConflict: \.name)
        }
        #expect(refused?.kind == .conflictTargetNotUnique)
        #expect(recorded.executions.count == 1 && recorded.executions[0].bindings == [.text("PersonForRecording")],
                "only the catalog's keys of the table were read, nothing written: \(recorded.statements)")
        recorded.uniqueKeys["PersonForRecording"] = ["PersonForRecording_name_key": ["name"]]
        try db.table(PersonForRecording.self).upsert(person, onConflict: \.name)
        #expect(recorded.statements.last?.contains("ON CONFLICT") == true)
        #expect(recorded.executions.last?.bindings == [.integer(1), .text("Ann"), .integer(40)])
    }
}

struct PersonForRecording: CRUDModel, Equatable {
    let id: Int
    var name: String
    var age: Int
}

@testable import CRUD
import CRUDTesting
import Foundation
import Testing

/// A gauge whose check uses every form a typed check writes: comparisons with a number, text with
/// a quote, a truth value and nil, `&&`, `||`, `!` and parentheses.
struct Gauge: CRUDModel {
    let id: Int
    var label: String
    var level: Double
    var active: Bool
    var note: String?

    static let crudConstraints: [CRUDConstraint<Gauge>] = [
        .check((\Gauge.level >= 0 && \Gauge.level < 1.5 || !(\Gauge.label == "it's")) && \Gauge.note != nil && \Gauge.active == true,
               name: "gauge_sane"),
    ]
}

/// Typed checks in standard SQL, as `crud-migrations` freezes them (`TypedCheckGenerationTests`
/// expects the same text from the source) and as `create` writes them.
@Suite("typed checks")
struct TypedCheckTests {
    static let condition = #"(((("level" >= 0.0 AND "level" < 1.5) OR NOT ("label" = 'it''s')) AND "note" IS NOT NULL) AND "active" = TRUE)"#

    @Test("a typed check freezes to standard SQL with its values written in, and create writes it in the table")
    func frozenAndCreated() throws {
        #expect(try Gauge.crudFrozenConstraints() == [.typedCheck("gauge_sane", condition: Self.condition)])
        let db = recordingDatabase()
        try db.create(Gauge.self)
        let create = try #require(db.configuration.connection.statements.first { $0.hasPrefix("CREATE TABLE") })
        #expect(create.contains(#"CONSTRAINT "gauge_sane" CHECK ("# + Self.condition + ")"), "\(create)")
    }

    @Test("what a typed check cannot write the same everywhere is refused when it is frozen, naming the model")
    func refused() throws {
        let conditions: [(CRUDBooleanExpression, String)] = [
            (\Token.name %=% "x", "LIKE"), (\Token.name ~ [String](), "empty list"), (\Token.value == UUID(), "stores its own way"),
            (lower(\Token.name) == "x", "function"), (\Gauge.label == "x", "no column of Token"),
        ]
        for (condition, words) in conditions {
            let error = #expect(throws: CRUDSQLGenError.self) { try CRUDConstraint<Token>.check(condition).frozen() }
            #expect(error?.msg.contains(words) == true && error?.msg.contains("Token") == true, "\(String(describing: error))")
        }
    }
}

/// A model for the checks a typed check cannot write.
struct Token: CRUDModel {
    let id: Int
    var name: String
    var value: UUID
}

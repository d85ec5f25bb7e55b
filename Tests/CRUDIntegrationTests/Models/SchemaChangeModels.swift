import CRUD

/// A score as version 1 of an app stores it: points as text, a note.
struct ScoreV1: CRUDModel, TableNameProvider {
    static let tableName = "Score"
    let id: Int
    var player: String
    var points: String
    var note: String?
}

/// Version 2: `points` retyped to an integer, `player` renamed `name`, `note` dropped, `bonus`
/// added, and a check that version 1 did not have.
struct ScoreV2: CRUDModel, TableNameProvider {
    static let tableName = "Score"
    let id: Int
    var name: String
    var points: Int
    var bonus: Double

    static let crudConstraints: [CRUDConstraint<ScoreV2>] = [.check("points >= 0", name: "Score_points_check")]
}

/// Rows of another table that reference scores, and must outlive the rebuild of theirs.
struct Award: CRUDModel {
    let id: Int
    var scoreId: Int
    var title: String

    static let crudConstraints: [CRUDConstraint<Award>] = [.foreignKey(\.scoreId, references: \ScoreV1.id, onDelete: .cascade)]
}

/// A note whose key the database makes, as first shipped.
struct NoteV1: CRUDModel, TableNameProvider {
    static let tableName = "Note"
    let id: Int?
    var text: String

    static let crudConstraints: [CRUDConstraint<NoteV1>] = [.unique(\.text)]
}

/// The note with an optional column more: what SQLite's `ADD COLUMN` does alone.
struct NoteV2: CRUDModel, TableNameProvider {
    static let tableName = "Note"
    let id: Int?
    var text: String
    var author: String?

    static let crudConstraints: [CRUDConstraint<NoteV2>] = [.unique(\.text)]
}

/// The note with a non-optional column more, which SQLite adds by rebuilding the table.
struct NoteV3: CRUDModel, TableNameProvider {
    static let tableName = "Note"
    let id: Int?
    var text: String
    var author: String?
    var words: Int

    static let crudConstraints: [CRUDConstraint<NoteV3>] = [.unique(\.text)]
}

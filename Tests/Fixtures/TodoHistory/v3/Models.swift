import CRUD
import Foundation

struct HistoryUser: CRUDModel {
    var id: Int
    var name: String
    var email: String

    static let crudConstraints: [CRUDConstraint<HistoryUser>] = [.unique(\.email)]
}

struct HistoryTodo: CRUDModel {
    var id: Int
    var userId: Int
    var title: String
    var done: Bool
    var priority: Int?
    var dueAt: Date?
    var position: Int

    static let crudConstraints: [CRUDConstraint<HistoryTodo>] = [
        .foreignKey(\.userId, references: \HistoryUser.id, onDelete: .cascade),
    ]
    static let crudIndexes: [CRUDIndex<HistoryTodo>] = [.index(\.title)]
}

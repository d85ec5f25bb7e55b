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
    var title: String // crud-migrations: renamed from "name"
    var done: Bool
    var priority: String?
    var notes: String?
    var dueAt: Date?
    var position: Int

    static let crudIndexes: [CRUDIndex<HistoryTodo>] = [.index(\.title)]
}

import CRUD

struct HistoryUser: CRUDModel {
    var id: Int
    var name: String
    var email: String

    static let crudConstraints: [CRUDConstraint<HistoryUser>] = [.unique(\.email)]
}

struct HistoryTodo: CRUDModel {
    var id: Int
    var userId: Int
    var name: String
    var done: Bool
    var priority: String?
    var notes: String?
}

import CRUD

/// A row whose inserts and updates can be made to fail: its `name` is unique, and `twice` is a
/// computed property, whose key path names no column.
struct Boundary: CRUDModel {
    let id: Int
    var name: String
    var n: Int

    var twice: Int { n * 2 }

    static let crudConstraints: [CRUDConstraint<Boundary>] = [.unique(\.name)]
}

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

/// Boundary's table read with a number where it holds text, so that reading a row fails.
struct BoundaryMisread: CRUDModel, TableNameProvider {
    static let tableName = "Boundary"
    let id: Int
    var name: Int
    var n: Int
}

/// A parent of boundary rows, for a join that names no column.
struct BoundaryParent: CRUDModel {
    let id: Int
    let rows: [Boundary]?
}

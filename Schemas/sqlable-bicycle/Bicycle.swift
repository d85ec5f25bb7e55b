import CRUD

// Sqlable's example model: an optional id the database assigns, two text columns.
struct Bicycle: CRUDModel, Equatable {
    let id: Int?
    var name: String
    var color: String
}

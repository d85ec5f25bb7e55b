import CRUD

// The generator builds a model from a row through Swift's memberwise initializer when the struct has
// one the generated file can call (it builds the model in place), and property by property
// otherwise. Each model here stands for one of the shapes that decide it.

/// Memberwise: the columns follow CodingKeys, the initializer's arguments follow the declaration; a
/// `let` with a value and the properties CodingKeys leaves out keep their defaults.
struct KeyedOutOfOrder: CRUDModel, Equatable {
    enum CodingKeys: String, CodingKey {
        case title, id, note = "remark"
    }

    let kind = "keyed"
    let id: Int
    var note: String?
    var title: String
    var cached: Int?
    var version = 3
}

/// Property by property: an initializer of its own takes the memberwise one away.
struct OwnInitializer: CRUDModel, Equatable {
    let id: Int
    var title: String
    var note: String?

    init(id: Int, title: String, note: String? = nil) {
        self.id = id
        self.title = title
        self.note = note
    }
}

/// Property by property: a private stored property makes the memberwise initializer private.
struct PrivateState: CRUDModel, Equatable {
    enum CodingKeys: String, CodingKey {
        case id, title
    }

    let id: Int
    var title: String
    private var touched = false

    mutating func touch() { touched = true }
    var isTouched: Bool { touched }
}

/// Property by property: a lazy property.
struct LazyDerived: CRUDModel {
    let id: Int
    var title: String
    lazy var shouted = title.uppercased()
}

import CRUD

struct Box<T> {
    var value: T
}

extension Box where T: Equatable {
    func contains(_ other: T) -> Bool where T: Hashable { value == other }
}

func firstMatch<S: Sequence>(_ sequence: S, _ test: (S.Element) -> Bool) -> S.Element? where S.Element: Equatable {
    sequence.first(where: test)
}

struct Outer {
    enum Kind: String {
        case small, large
    }

    struct Inner: CRUDModel, Equatable {
        let id: Int
        var kind: Kind
        var counts: Dictionary<String, [Int]>.Index? { nil } // computed, generic-heavy
    }

    let generic: Box<Dictionary<String, Array<Int>>>
}

extension Outer {
    /// A model declared in an extension's nested scope, related to another nested model.
    struct FromExtension: CRUDModel {
        let id: Int
        var innerId: Int
        var kind: Outer.Kind?
        var inners: [Inner]?
    }
}

enum Namespace {
    enum Deeper {
        struct Deepest: CRUDModel {
            let id: Int
            var siblings: [Namespace.Deeper.Deepest]?
        }
    }
}

import CRUD

// Perfect-CRUD's testSelfJunctionJoin, whose types are local to the test: here in a namespace, as
// generated code cannot extend a local type. Their tables are "Me" and "Us".
enum SelfJunction {
    struct Me: Codable, CRUDModel {
        let id: Int
        let us: [Me]?
        init(id i: Int) {
            id = i
            us = nil
        }
    }

    struct Us: Codable, CRUDModel {
        let you: Int
        let them: Int
    }
}

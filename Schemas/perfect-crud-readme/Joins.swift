import CRUD

// Parent-child join.
struct Parent: Codable, CRUDModel {
    let id: Int
    let children: [Child]?
}

struct Child: Codable, CRUDModel {
    let id: Int
    let parentId: Int
}

// Many-to-many and junction joins.
struct Student: Codable, CRUDModel {
    let id: Int
    let classes: [Class]?
    init(id i: Int) {
        id = i
        classes = nil
    }
}

struct Class: Codable, CRUDModel {
    let id: Int
    let students: [Student]?
    init(id i: Int) {
        id = i
        students = nil
    }
}

struct StudentClasses: Codable, CRUDModel {
    let studentId: Int
    let classId: Int
}

// Self join.
struct Me: Codable, CRUDModel {
    let id: Int
    let parentId: Int
    let mes: [Me]?
    init(id i: Int, parentId p: Int) {
        id = i
        parentId = p
        mes = nil
    }
}

import BenchCore
import CRUD
import Foundation

struct BenchItem: CRUDModel, TableNameProvider {
    static let tableName = "items"
    let id: Int64
    var name: String
    var score: Double
    var flag: Bool
    var createdAt: Date
    var note: String?
}

struct BenchParent: CRUDModel, TableNameProvider {
    static let tableName = "parents"
    let id: Int64
    var name: String
    var children: [BenchChild]?
}

struct BenchChild: CRUDModel, TableNameProvider {
    static let tableName = "children"
    let id: Int64
    var parentId: Int64
    var name: String
    var value: Double
}

struct BenchDocument: CRUDModel, TableNameProvider {
    static let tableName = "documents"
    let id: Int64
    var payload: CRUDJSON<DocumentPayload>
}

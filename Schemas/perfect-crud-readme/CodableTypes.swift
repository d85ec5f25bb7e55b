import CRUD
import Foundation

// The "Codable Types" section: CodingKeys renames, a custom table name, a joined type.
struct TestTable1: Codable, CRUDModel, TableNameProvider {
    enum CodingKeys: String, CodingKey {
        // specify custom column names for some properties
        case id, name, integer = "int", double = "doub", blob, subTables
    }
    // specify a custom table name
    static let tableName = "test_table_1"

    let id: Int
    let name: String?
    let integer: Int?
    let double: Double?
    let blob: [UInt8]?
    let subTables: [TestTable2]?
}

struct TestTable2: Codable, CRUDModel {
    let id: UUID
    let parentId: Int
    let date: Date
    let name: String?
    let int: Int?
    let doub: Double?
    let blob: [UInt8]?
}

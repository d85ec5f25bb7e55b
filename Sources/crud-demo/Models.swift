import CRUD
import Foundation

/// A person in the galaxy, with phone numbers joined from another table.
struct Person: Codable, CRUDModel {
    let id: UUID
    var firstName: String
    var lastName: String
    var height: Double?
    let phoneNumbers: [PhoneNumber]?
}

struct PhoneNumber: Codable, CRUDModel {
    let personId: UUID
    let planetCode: Int
    let number: String
}

/// Sqlable's bicycle: the database assigns the id.
struct Bicycle: CRUDModel {
    let id: Int?
    var name: String
    var color: String
}

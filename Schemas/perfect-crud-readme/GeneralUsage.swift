import CRUD
import Foundation

// The General Usage example of the Perfect-CRUD README, with `height` from its "Property Optionals".
struct PhoneNumber: Codable, CRUDModel {
    let personId: UUID
    let planetCode: Int
    let number: String
}

struct Person: Codable, CRUDModel {
    let id: UUID
    let firstName: String
    let lastName: String
    var height: Double? // height in cm
    let phoneNumbers: [PhoneNumber]?
}

import CRUD
import Foundation

/// A nested struct stored as JSON, marked so.
struct Address: Codable, Equatable, CRUDJSONValue {
    var street: String
    var city: String
    var floors: [Int]
}

/// A model with JSON columns next to plain ones.
struct Customer: CRUDModel, Equatable {
    let id: Int
    var name: String
    var address: Address
    var previous: Address?
    var tags: CRUDJSON<[String]>
    var scores: CRUDJSON<[String: Double]>?
}

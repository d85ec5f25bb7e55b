import CRUD
import Foundation

// Models whose `createdAt` and `updatedAt` CRUD fills on every insert and update.

/// Both timestamps, optional, their columns renamed by CodingKeys.
struct Note: CRUDModel, CRUDTimestamped {
    enum CodingKeys: String, CodingKey {
        case id, text, createdAt = "created_at", updatedAt = "updated_at"
    }

    var id: Int
    var text: String
    var createdAt: Date?
    var updatedAt: Date?
}

/// Only `updatedAt`, not optional; the conformance in an extension, which alone makes it a model.
public struct Setting {
    public var key: String
    public var value: String
    public var updatedAt: Date
}

extension Setting: CRUDTimestamped {}

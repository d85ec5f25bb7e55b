import CRUD
import Foundation

enum Mood: String, Codable, Sendable {
    case calm, cheerful, grumpy = "GRUMPY"
}

enum Priority: Int8 {
    case low = -1, normal = 0, high = 1
}

/// A value type of the user's own that declares its conformance (so the generator adds none).
struct Cents: RawRepresentable, Equatable, CRUDValue {
    var rawValue: Int64
}

typealias Score = Double

/// One column of every supported type, and its optional.
struct AllColumnTypes: CRUDModel, Equatable {
    var id: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var bool: Bool
    var string: String
    var bytes: [UInt8]
    var signedBytes: [Int8]
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var mood: Mood
    var priority: Priority
    var cents: Cents
    var score: Score

    var optionalInt: Int?
    var optionalInt8: Int8?
    var optionalInt16: Int16?
    var optionalInt32: Int32?
    var optionalInt64: Optional<Int64>
    var optionalUInt: UInt?
    var optionalUInt8: UInt8?
    var optionalUInt16: UInt16?
    var optionalUInt32: UInt32?
    var optionalUInt64: UInt64?
    var optionalDouble: Double?
    var optionalFloat: Float?
    var optionalBool: Bool?
    var optionalString: String?
    var optionalBytes: [UInt8]?
    var optionalSignedBytes: Array<Int8>?
    var optionalData: Foundation.Data?
    var optionalDate: Date?
    var optionalUUID: UUID?
    var optionalURL: URL?
    var optionalMood: Mood?
    var optionalPriority: Priority?
    var optionalCents: Cents?
    var optionalScore: Score?
    var swiftInt: Swift.Int
}

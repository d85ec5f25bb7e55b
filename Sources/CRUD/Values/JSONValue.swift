import Foundation

/// A `Codable` type stored in one column as JSON: text on SQLite, `jsonb` on PostgreSQL. Mark a
/// nested struct with it, and the generator accepts properties of its type:
///
///     struct Address: Codable, CRUDJSONValue { var street: String; var city: String }
///     struct Customer: CRUDModel { let id: Int; var address: Address; var tags: CRUDJSON<[String]> }
///
/// Arrays, dictionaries and types of other modules are wrapped in `CRUDJSON` instead. Only these
/// columns go through `JSONEncoder`/`JSONDecoder` (keys sorted, so equal values are equal text);
/// every other column keeps the generated reading and binding.
public protocol CRUDJSONValue: CRUDValue, Codable {}

extension CRUDJSONValue {
    public static var crudColumnType: CRUDColumnType { .json }

    /// Decodes the column's JSON.
    /// - Throws: `CRUDDecoderError` naming the column when it is NULL, not JSON, or JSON of another shape.
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        self = try decodeJSON(Self.self, row: row, column: column)
    }

    /// Binds the value's JSON as text.
    /// - Throws: `CRUDEncoderError` when the value does not encode (a `Double.nan`, say).
    public func crudBind<Binder: CRUDBinder>(to binder: inout Binder, at position: Int) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data: Data
        do {
            data = try encoder.encode(self)
        } catch {
            throw CRUDEncoderError("\(Self.self) does not encode as JSON for parameter \(position + 1): \(CRUDJSONProblem(error))")
        }
        try binder.bindText(String(decoding: data, as: UTF8.self), at: position)
    }
}

/// The decoder of every JSON column: one for all, since making one costs about as much as decoding
/// a small value, and its `decode` keeps its state per call.
private let crudJSONDecoder = JSONDecoder()

/// A `type` decoded from `column`'s JSON, read where the driver keeps its bytes.
/// - Throws: `CRUDDecoderError` naming the column when it is NULL, not JSON, or JSON of another shape.
private func decodeJSON<Value: Decodable, Row: CRUDRowReader>(_ type: Value.Type, row: Row, column: Int) throws -> Value {
    try row.withTextBytes(column) { bytes in
        // The decoder is done with the bytes as it returns.
        let json = bytes.isEmpty ? Data()
            : Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count, deallocator: .none)
        do {
            return try crudJSONDecoder.decode(Value.self, from: json)
        } catch {
            let text = String(decoding: bytes, as: UTF8.self)
            throw row.decodingError(column, "\(CRUDJSONProblem(error)) (decoding \(Value.self) from \(CRUDJSONProblem.excerpt(text)))")
        }
    }
}

/// Any `Codable` value stored in one column as JSON: an array, a dictionary, a type of another
/// module. `var tags: CRUDJSON<[String]>`, read and written as `tags.value`.
public struct CRUDJSON<Value: Codable & Sendable>: CRUDJSONValue, Sendable {
    /// The value the column holds.
    public var value: Value

    /// `value`, to be stored as JSON.
    public init(_ value: Value) {
        self.value = value
    }

    /// Decodes the column's JSON as the wrapped value, without a wrapper's container in between.
    /// - Throws: `CRUDDecoderError` naming the column when it is NULL, not JSON, or JSON of another shape.
    public init<Row: CRUDRowReader>(crudRow row: Row, column: Int) throws {
        value = try decodeJSON(Value.self, row: row, column: column)
    }

    /// Decodes the wrapped value itself, so the column holds `["a","b"]`, not `{"value":["a","b"]}`.
    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension CRUDJSON: Equatable where Value: Equatable {}
extension CRUDJSON: Hashable where Value: Hashable {}

/// What went wrong in JSON, in one line: where in the value, and why.
struct CRUDJSONProblem: CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        switch error {
        case let DecodingError.dataCorrupted(context):
            description = "not valid JSON: " + Self.describe(context)
        case let DecodingError.keyNotFound(key, context):
            description = "no \"\(key.stringValue)\"" + Self.at(context)
        case let DecodingError.typeMismatch(type, context), let DecodingError.valueNotFound(type, context):
            description = "expected \(type)" + Self.at(context) + ": " + context.debugDescription
        case let EncodingError.invalidValue(_, context):
            description = context.debugDescription + (context.codingPath.isEmpty ? "" : " at " + Self.path(context.codingPath))
        default:
            description = "\(error)"
        }
    }

    private static func describe(_ context: DecodingError.Context) -> String {
        let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return underlying ?? context.debugDescription
    }

    private static func at(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "" : " at " + path(context.codingPath)
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// The text, cut after 60 characters.
    static func excerpt(_ text: String) -> String {
        text.count <= 60 ? "'\(text)'" : "'\(text.prefix(60))…'"
    }
}

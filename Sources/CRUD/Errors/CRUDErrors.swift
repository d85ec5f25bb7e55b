/// A row value could not be turned into a model property: NULL in a non-optional column, a number
/// out of the property's range, text that is not a URL, and the like.
public struct CRUDDecoderError: Error, CustomStringConvertible, Sendable {
    public let msg: String
    public init(_ msg: String) { self.msg = msg }
    public var description: String { "CRUDDecoderError: \(msg)" }
}

/// A model property could not be stored: a `UInt64` above `Int64.max`, a column position that does
/// not exist, and the like.
public struct CRUDEncoderError: Error, CustomStringConvertible, Sendable {
    public let msg: String
    public init(_ msg: String) { self.msg = msg }
    public var description: String { "CRUDEncoderError: \(msg)" }
}

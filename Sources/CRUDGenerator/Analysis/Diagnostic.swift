/// A problem found in the user's code, located at their declaration.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning
    }

    public var severity: Severity
    public var path: String
    /// 1-based.
    public var line: Int
    /// 1-based, in bytes.
    public var column: Int
    /// What is wrong and what to do instead.
    public var message: String

    /// `path:line:column: error: message`, the form SwiftPM and Xcode show in place.
    public var description: String {
        "\(path):\(line):\(column): \(severity.rawValue): \(message)"
    }
}

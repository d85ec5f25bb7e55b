import Foundation

/// The options of CRUD's own in a database URL's query (`?statementTimeout=10s&maximumConnections=16`),
/// taken out of it for a driver: the rest of the URL (its driver's own query items among it) is
/// left as it was. Values are whole numbers, `true`/`false`, or durations (`250ms`, `10s`, `2m`;
/// a bare number is seconds).
@_spi(CRUDDriver) public struct CRUDURLOptions: Sendable {
    /// The URL without the options taken.
    public let url: String
    private let values: [String: String]

    /// The pool's options, as `CRUDPoolOptions` names them (`poolTimeout` is its `timeout`).
    public static let poolNames: Set<String> = ["minimumConnections", "maximumConnections", "poolTimeout", "connectsOnFirstUse",
                                                "connectRetry", "statementTimeout"]

    /// Takes the query items of `url` named in `names` out of it.
    /// - Throws: `CRUDSQLGenError` when one of them is given twice.
    public init(_ url: String, taking names: Set<String>) throws {
        guard let mark = url.firstIndex(of: "?") else {
            self.url = url
            values = [:]
            return
        }
        var kept: [Substring] = []
        var taken: [String: String] = [:]
        for item in url[url.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true) {
            let name = String(item.prefix { $0 != "=" })
            guard names.contains(name) else {
                kept.append(item)
                continue
            }
            let value = item.drop { $0 != "=" }.dropFirst()
            guard taken[name] == nil else { throw CRUDSQLGenError("the database URL gives \(name) twice: give it once") }
            taken[name] = value.removingPercentEncoding ?? String(value)
        }
        self.url = String(url[..<mark]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        values = taken
    }

    /// Whether the URL gave `name`.
    public func has(_ name: String) -> Bool {
        values[name] != nil
    }

    /// The whole number the URL gives for `name`, if any.
    /// - Throws: `CRUDSQLGenError` for a value that is not one.
    public func int(_ name: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text) else { throw Self.invalid(name, text, "a whole number, as \(name)=4") }
        return value
    }

    /// The truth value the URL gives for `name`, if any: `true`, `false`, `1`, `0`, or the name
    /// alone (`?exclusiveToProcess`), which is `true`.
    /// - Throws: `CRUDSQLGenError` for a value that is not one.
    public func bool(_ name: String) throws -> Bool? {
        guard let text = values[name] else { return nil }
        switch text.lowercased() {
        case "", "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw Self.invalid(name, text, "true or false")
        }
    }

    /// The duration the URL gives for `name`, if any: `250ms`, `10s`, `2m`, or a number of seconds.
    /// - Throws: `CRUDSQLGenError` for a value that is not one.
    public func duration(_ name: String) throws -> Duration? {
        guard let text = values[name] else { return nil }
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        let unit = units.first { text.hasSuffix($0.suffix) } ?? ("", 1)
        guard let number = Double(text.dropLast(unit.suffix.count)), number >= 0, number.isFinite else {
            throw Self.invalid(name, text, "a duration, as \(name)=250ms, \(name)=10s or \(name)=2m")
        }
        return .milliseconds(Int64((number * unit.seconds * 1000).rounded()))
    }

    /// `pool` with the pool options the URL gives (`poolNames`) in place of its own.
    /// - Throws: `CRUDSQLGenError` for a value that does not fit its option.
    public func pool(_ pool: CRUDPoolOptions) throws -> CRUDPoolOptions {
        var options = pool
        options.minimumConnections = try int("minimumConnections") ?? options.minimumConnections
        options.maximumConnections = try int("maximumConnections") ?? options.maximumConnections
        options.timeout = try duration("poolTimeout") ?? options.timeout
        options.connectsOnFirstUse = try bool("connectsOnFirstUse") ?? options.connectsOnFirstUse
        options.connectRetry = try duration("connectRetry") ?? options.connectRetry
        if has("statementTimeout") { options.statementTimeout = try duration("statementTimeout") }
        return options
    }

    private static func invalid(_ name: String, _ value: String, _ expected: String) -> CRUDSQLGenError {
        CRUDSQLGenError("the database URL's \(name)=\(value) is not \(expected)")
    }
}

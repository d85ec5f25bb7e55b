import Foundation

/// One row of the `items` table, as every implementation sees it.
public struct ItemData: Sendable {
    public var id: Int64
    public var name: String
    public var score: Double
    public var flag: Bool
    public var createdAt: Date
    public var note: String?

    public init(id: Int64, name: String, score: Double, flag: Bool, createdAt: Date, note: String?) {
        self.id = id
        self.name = name
        self.score = score
        self.flag = flag
        self.createdAt = createdAt
        self.note = note
    }
}

/// A deterministic generator, so every run and every implementation sees the same data.
public struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The data of one run: items, the ids to look up, the thresholds of the filtered queries, and the
/// sizes of the join.
public struct Dataset: Sendable {
    public let items: [ItemData]
    public let lookupIds: [Int64]
    public let thresholds: [Double]
    /// The pages a list endpoint is asked for, one for each threshold.
    public let pageRequests: [PageRequest]
    public let parents: Int
    public let childrenPerParent: Int

    public init(rows: Int) {
        var random = SplitMix(seed: 0xC0DE)
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        items = (1 ... max(rows, 1)).map { index in
            let suffix = String(repeating: "x", count: Int.random(in: 0 ... 20, using: &random))
            return ItemData(
                id: Int64(index), name: "item-\(index)-\(suffix)", score: Double.random(in: 0 ..< 1_000, using: &random),
                flag: index % 3 == 0, createdAt: base.addingTimeInterval(Double(index) + Double(index % 1_000) / 1_000),
                note: index.isMultiple(of: 2) ? nil : "note \(index)")
        }
        lookupIds = (0 ..< max(rows / 10, 1)).map { _ in Int64.random(in: 1 ... Int64(max(rows, 1)), using: &random) }
        thresholds = (0 ..< 100).map { _ in Double.random(in: 0 ..< 900, using: &random) }
        // The top tenth of scores: a list whose total is a few thousand rows, not most of the table.
        pageRequests = thresholds.enumerated().map { index, threshold in
            PageRequest(minScore: 900 + threshold / 9, flaggedOnly: !index.isMultiple(of: 2), page: index % 5 + 1, size: 20)
        }
        parents = max(rows / 100, 1)
        childrenPerParent = 10
    }

    public static let filteredLimit = 100
}

/// A page a list endpoint asks for: the items scoring at least `minScore` (only the flagged ones
/// when `flaggedOnly`, a filter the request may leave out), ordered by score and then id, page
/// `page` (from 1) of `size`, with how many items match in all.
public struct PageRequest: Sendable {
    public let minScore: Double
    public let flaggedOnly: Bool
    public let page: Int
    public let size: Int
}

/// Sums fields of fetched rows so no implementation can skip reading them. Order-independent.
public struct Checksum: Equatable, CustomStringConvertible, Sendable {
    public private(set) var rows = 0
    public private(set) var value: Int64 = 0

    public init() {}

    public mutating func add(id: Int64, name: String, score: Double, flag: Bool, createdAt: Date, note: String?) {
        rows += 1
        var mixed = id &* 31 &+ Int64(name.utf8.count) &* 7 &+ Int64(name.utf8.last ?? 0)
        mixed = mixed &+ Int64((score * 1_000).rounded()) &+ (flag ? 1 : 0)
        mixed = mixed &+ Int64((createdAt.timeIntervalSince1970 * 1_000).rounded()) &+ Int64(note?.utf8.count ?? -1)
        value = value &+ mixed
    }

    /// A parent with its children.
    public mutating func add(parentId: Int64, parentName: String, children: [(id: Int64, parentId: Int64, name: String, value: Double)]) {
        rows += 1
        var mixed = parentId &* 17 &+ Int64(parentName.utf8.count) &+ Int64(children.count) &* 1_000_003
        for child in children {
            mixed = mixed &+ child.id &* 13 &+ child.parentId &+ Int64(child.name.utf8.count) &+ Int64((child.value * 1_000).rounded())
        }
        value = value &+ mixed
    }

    /// A page's count of every matching row.
    public mutating func add(total: Int) {
        value = value &+ Int64(total) &* 1_000_033
    }

    /// For workloads whose result is a count of rows and a hash computed elsewhere.
    public init(rows: Int, value: Int64) {
        self.rows = rows
        self.value = value
    }

    public var description: String { "\(rows) rows / \(value)" }
}

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar (Howard Hinnant's
/// days-from-civil), for the raw implementations that read dates field by field.
public func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

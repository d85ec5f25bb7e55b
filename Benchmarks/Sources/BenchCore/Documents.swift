import Foundation

/// What a JSON column holds in the `json` workload: a todo as a service stores one, with a list and
/// an optional field.
public struct DocumentPayload: Codable, Sendable, Equatable {
    public var title: String
    public var done: Bool
    public var priority: Int
    public var tags: [String]
    public var due: Double?

    public init(title: String, done: Bool, priority: Int, tags: [String], due: Double?) {
        self.title = title
        self.done = done
        self.priority = priority
        self.tags = tags
        self.due = due
    }

    /// The payload of document `id`: the same in every run.
    public static func of(_ id: Int64) -> DocumentPayload {
        DocumentPayload(title: "todo number \(id)", done: id % 2 == 0, priority: Int(id % 5),
                        tags: (0 ..< Int(id % 4)).map { "tag\($0)" }, due: id % 3 == 0 ? nil : 1_700_000_000 + Double(id))
    }
}

extension Dataset {
    /// The rows of the `documents` table: one per item.
    public var documents: Int { items.count }
}

extension Checksum {
    /// A document and its decoded payload.
    public mutating func add(documentId: Int64, payload: DocumentPayload) {
        var mixed = documentId &* 29 &+ Int64(payload.title.utf8.count) &+ (payload.done ? 1 : 0) &+ Int64(payload.priority) &* 3
        for tag in payload.tags { mixed = mixed &+ Int64(tag.utf8.count) &* 5 }
        mixed = mixed &+ Int64(payload.due ?? -1)
        self = Checksum(rows: rows + 1, value: value &+ mixed)
    }
}

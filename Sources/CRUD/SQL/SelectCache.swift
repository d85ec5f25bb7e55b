import Foundation

/// The SQL text of recent join-free selects by query shape, so a query repeated with other values
/// (a lookup by id in a loop, say) skips building its SQL and then finds its prepared statement.
///
/// A shape is what decides the text: the dialect, the model, the key paths named (by object identity),
/// operators, which comparisons are with `nil`, list lengths, orderings, and which limit parts are set.
/// Values are not part of it; they are collected in the order the builder binds them. An entry keeps
/// its key paths alive, so no other key path can take over an identity it was stored under.
///
/// `@unchecked Sendable`: `entries` is guarded by `lock`.
@usableFromInline
final class SelectCache: @unchecked Sendable {
    @usableFromInline static let shared = SelectCache()
    /// Shapes kept at most: each connection keeps a statement for a shape's one-row reads, so this
    /// also bounds the statements a connection holds for them, as the drivers' own caches bound
    /// theirs (a server keeps each prepared statement until it is discarded).
    static let capacity = 256

    /// Dialect, model and key-path identities (as bit patterns) and structure tokens, in walk order.
    struct Shape: Hashable {
        var tokens: [Int]
    }

    private struct Entry {
        let sql: String
        let keyPaths: [AnyKeyPath]
        /// Where each connection keeps this shape's statement, for reads that finish before they
        /// return (`first()`): found by index, without hashing the SQL text.
        let slot = CRUDStatementSlot()
    }

    /// A cached select: its SQL, the values to bind in order, and the slot of its statement (`nil`
    /// for a select the cache does not take: joins, an invalid condition).
    @usableFromInline
    struct Statement {
        @usableFromInline let sql: String
        @usableFromInline let values: [CRUDDatabaseValue]
        @usableFromInline let slot: CRUDStatementSlot?
    }

    private let lock = NSLock()
    private var entries: [Shape: Entry] = [:]

    /// The SQL and parameters of the plan's root query, from the cache when the shape was seen before.
    func select(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, dialect: any CRUDDialect) throws -> (String, [CRUDDatabaseValue]) {
        let statement = try self.statement(plan, limit: limit, dialect: dialect)
        return (statement.sql, statement.values)
    }

    /// The plan's root query with the slot of its statement, from the cache when the shape was seen
    /// before.
    @usableFromInline
    func statement(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, dialect: any CRUDDialect) throws -> Statement {
        guard plan.joins.isEmpty, let key = ShapeKey(plan: plan, limit: limit, dialect: dialect) else {
            var builder = SQLBuilder(dialect: dialect)
            let sql = try builder.select(plan, limit: limit)
            return Statement(sql: sql, values: builder.parameters, slot: nil)
        }
        let shape = key.shape
        if let entry = lock.withLock({ entries[shape] }) {
            return Statement(sql: entry.sql, values: key.values, slot: entry.slot)
        }
        var builder = SQLBuilder(dialect: dialect)
        let sql = try builder.select(plan, limit: limit)
        assert(builder.parameters == key.values, "the select cache collects values in another order than the builder binds them")
        var keyPaths: [AnyKeyPath] = []
        if let filter = plan.filter { ShapeKey.collectKeyPaths(filter.node, into: &keyPaths) }
        let entry = Entry(sql: sql, keyPaths: keyPaths)
        lock.withLock {
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[shape] = entry
        }
        return Statement(sql: sql, values: builder.parameters, slot: entry.slot)
    }
}

/// Walks a plan the way `SQLBuilder.select` does, recording its shape and collecting its values.
private struct ShapeKey {
    var shape: SelectCache.Shape
    var values: [CRUDDatabaseValue] = []

    /// `nil` for plans the cache does not take (an expression holding an encoding error).
    init?(plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, dialect: any CRUDDialect) {
        shape = SelectCache.Shape(tokens: [])
        shape.tokens.reserveCapacity(16)
        shape.tokens.append(Self.identity(ObjectIdentifier(type(of: dialect))))
        shape.tokens.append(Self.identity(ObjectIdentifier(plan.root)))
        values.reserveCapacity(4)
        if let filter = plan.filter {
            guard add(filter.node) else { return nil }
        }
        shape.tokens.append(-1)
        for term in plan.order {
            shape.tokens.append(term.column * 2 + (term.descending ? 1 : 0))
        }
        shape.tokens.append(-2)
        if let limit, limit.max != nil || limit.skip > 0 {
            if let max = limit.max {
                shape.tokens.append(1)
                values.append(.integer(Int64(max)))
            }
            if limit.skip > 0 {
                shape.tokens.append(2)
                values.append(.integer(Int64(limit.skip)))
            }
        }
    }

    private static func identity(_ object: ObjectIdentifier) -> Int {
        Int(bitPattern: object)
    }

    private mutating func column(_ reference: CRUDColumnReference) {
        shape.tokens.append(Self.identity(ObjectIdentifier(reference.model)))
        // A key path by identity; a column constant by position, negative so the two never meet.
        shape.tokens.append(reference.keyPath.map { Self.identity(ObjectIdentifier($0)) } ?? -1 - reference.column!)
        shape.tokens.append(reference.function?.code ?? 0)
    }

    /// The key paths an expression names, for the cache entry to keep alive.
    static func collectKeyPaths(_ node: CRUDBooleanExpression.Node, into keyPaths: inout [AnyKeyPath]) {
        switch node {
        case let .compare(reference, _, _), let .contained(reference, _, _), let .like(reference, _, _, _):
            if let keyPath = reference.keyPath { keyPaths.append(keyPath) }
        case let .and(left, right), let .or(left, right):
            collectKeyPaths(left, into: &keyPaths)
            collectKeyPaths(right, into: &keyPaths)
        case let .not(inner):
            collectKeyPaths(inner, into: &keyPaths)
        case .invalid:
            break
        }
    }

    private mutating func add(_ node: CRUDBooleanExpression.Node) -> Bool {
        switch node {
        case let .compare(reference, operation, value):
            column(reference)
            shape.tokens.append(10 + (value == .null ? 1 : 0))
            shape.tokens.append(operation.code)
            if value != .null { values.append(value) }
        case let .contained(reference, list, negated):
            column(reference)
            let present = list.filter { $0 != .null }
            shape.tokens += [20 + (negated ? 1 : 0), present.count, present.count == list.count ? 0 : 1]
            values += present
        case let .like(reference, pattern, text, negated):
            column(reference)
            let kind = switch pattern {
            case .contains: 0
            case .beginsWith: 1
            case .endsWith: 2
            }
            shape.tokens += [30 + (negated ? 1 : 0), kind]
            values.append(.text(pattern.pattern(text)))
        case let .and(left, right):
            shape.tokens.append(40)
            return add(left) && add(right)
        case let .or(left, right):
            shape.tokens.append(41)
            return add(left) && add(right)
        case let .not(inner):
            shape.tokens.append(42)
            return add(inner)
        case .invalid:
            return false
        }
        return true
    }
}

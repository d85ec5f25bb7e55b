import Foundation

/// The SQL text of recent join-free selects by query shape, so a query repeated with other values
/// (a lookup by id in a loop, say) skips building its SQL and then finds its prepared statement.
///
/// A shape is what decides the text: the dialect, the model, the key paths named (by object identity),
/// operators, which comparisons are with `nil`, list lengths, orderings, and which limit parts are set.
/// Values are not part of it; they are bound in the order the builder binds them. An entry keeps
/// its key paths alive, so no other key path can take over an identity it was stored under.
///
/// A lookup allocates nothing: one walk of the plan mixes its shape into the place of its entry, and
/// a second compares the shape with the entry's while it collects the values into the caller's
/// array, which keeps its capacity from one query to the next.
///
/// `@unchecked Sendable`: `entries` is guarded by `lock`.
@usableFromInline
final class SelectCache: @unchecked Sendable {
    @usableFromInline static let shared = SelectCache()
    /// Shapes kept at most: each connection keeps a statement for a shape's one-row reads, so this
    /// also bounds the statements a connection holds for them, as the drivers' own caches bound
    /// theirs (a server keeps each prepared statement until it is discarded).
    static let capacity = 256

    /// A select's SQL, and the slot of its statement (`nil` for a select the cache does not take:
    /// joins, an invalid condition). A class, so that taking one out of the table retains one
    /// object.
    @usableFromInline
    final class Statement: Sendable {
        @usableFromInline let sql: String
        /// Where each connection keeps this shape's statement, for reads that finish before they
        /// return (`first()`): found by index, without hashing the SQL text.
        @usableFromInline let slot: CRUDStatementSlot?
        /// The shape's tokens, in walk order.
        let tokens: [Int]
        /// Key paths are immutable once formed, so sharing them between threads is safe though the
        /// type is not marked so.
        nonisolated(unsafe) let keyPaths: [AnyKeyPath]

        init(sql: String, cachedAs tokens: [Int]?, keyPaths: [AnyKeyPath] = []) {
            self.sql = sql
            slot = tokens == nil ? nil : CRUDStatementSlot(sql)
            self.tokens = tokens ?? []
            self.keyPaths = keyPaths
        }
    }

    private let lock = NSLock()
    /// Direct-mapped by the shape's mix: a shape whose place another holds replaces it. Hot shapes
    /// rarely meet, and one that lost its place is built again, as on a first use. Guarded by
    /// `lock`, which makes Swift's dynamic exclusivity checks redundant.
    @exclusivity(unchecked) private var entries = [Statement?](repeating: nil, count: capacity)

    /// A dialect with its identity, the first token of every shape: the dialect's type, found once
    /// per database. A dialect type writes the same selects whatever its instance says (a MySQL
    /// dialect's server version decides only what writes can return).
    @usableFromInline
    struct Dialect: Sendable {
        let dialect: any CRUDDialect
        let identity: Int

        init(_ dialect: any CRUDDialect) {
            self.dialect = dialect
            identity = ShapeWalk.identity(ObjectIdentifier(type(of: dialect)))
        }
    }

    /// The SQL and parameters of the plan's root query, from the cache when the shape was seen before.
    func select(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, dialect: Dialect) throws -> (String, [CRUDDatabaseValue]) {
        var values: [CRUDDatabaseValue] = []
        let statement = try self.statement(plan, limit: limit, dialect: dialect, values: &values)
        return (statement.sql, values)
    }

    /// The plan's root query with the slot of its statement, from the cache when the shape was seen
    /// before; `values` is set to what it binds, in order, keeping its capacity.
    @usableFromInline
    func statement(_ plan: CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, dialect: Dialect,
                   values: inout [CRUDDatabaseValue]) throws -> Statement {
        // One or two values: removing them one by one is cheaper than the general removal.
        while !values.isEmpty { values.removeLast() }
        var mixer = ShapeMixer()
        guard plan.joins.isEmpty, ShapeWalk.walk(plan, limit: limit, dialect: dialect, &mixer) else {
            var builder = SQLBuilder(dialect: dialect.dialect)
            let sql = try builder.select(plan, limit: limit)
            values = builder.parameters
            return Statement(sql: sql, cachedAs: nil)
        }
        let place = mixer.place
        if let entry = lock.withLock({ entries[place] }) {
            var matcher = ShapeMatcher(tokens: entry.tokens)
            // The matcher owns the buffer while it fills it, so appending does not copy it.
            swap(&matcher.values, &values)
            let walked = ShapeWalk.walk(plan, limit: limit, dialect: dialect, &matcher)
            swap(&matcher.values, &values)
            if walked, matcher.matched { return entry }
            while !values.isEmpty { values.removeLast() }
        }
        var builder = SQLBuilder(dialect: dialect.dialect)
        let sql = try builder.select(plan, limit: limit)
        var collector = ShapeCollector()
        _ = ShapeWalk.walk(plan, limit: limit, dialect: dialect, &collector)
        assert(builder.parameters == collector.values, "the select cache binds values in another order than the builder")
        var keyPaths: [AnyKeyPath] = []
        if let filter = plan.filter { ShapeWalk.collectKeyPaths(filter.node, into: &keyPaths) }
        let entry = Statement(sql: sql, cachedAs: collector.tokens, keyPaths: keyPaths)
        lock.withLock { entries[place] = entry }
        values.append(contentsOf: builder.parameters)
        return entry
    }
}

/// What a walk of a plan meets: the tokens of its shape, and its values in binding order (made
/// only for a visitor that takes them).
private protocol ShapeVisitor {
    mutating func token(_ token: Int)
    mutating func value(_ value: @autoclosure () -> CRUDDatabaseValue)
}

/// Mixes the tokens into the place of the shape's entry.
private struct ShapeMixer: ShapeVisitor {
    private var mix = 0

    mutating func token(_ token: Int) {
        // FNV-1a's step over whole words; the place takes the mix's top bits, which every token
        // reaches through the multiplications after it.
        mix = (mix ^ token) &* 0x100_0000_01B3
    }

    func value(_ value: @autoclosure () -> CRUDDatabaseValue) {}

    /// The top 8 bits (`capacity` is 256) of the mix, scrambled once more.
    var place: Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(mix)) &* 0x9E37_79B9_7F4A_7C15) >> 56)
    }
}

/// Compares the tokens with a stored shape's, collecting the values.
private struct ShapeMatcher: ShapeVisitor {
    let tokens: [Int]
    var values: [CRUDDatabaseValue] = []
    private var next = 0
    private var differs = false

    init(tokens: [Int]) {
        self.tokens = tokens
    }

    mutating func token(_ token: Int) {
        if next < tokens.count, tokens[next] == token { next += 1 } else { differs = true }
    }

    mutating func value(_ value: @autoclosure () -> CRUDDatabaseValue) {
        values.append(value())
    }

    var matched: Bool { !differs && next == tokens.count }
}

/// Keeps the tokens, for a new entry, and the values, for a caller that binds them itself.
private struct ShapeCollector: ShapeVisitor {
    var tokens: [Int] = []
    var values: [CRUDDatabaseValue] = []

    mutating func token(_ token: Int) {
        tokens.append(token)
    }

    mutating func value(_ value: @autoclosure () -> CRUDDatabaseValue) {
        values.append(value())
    }
}

/// Walks a plan the way `SQLBuilder.select` does: its shape's tokens, and its values in the order
/// the builder binds them.
private enum ShapeWalk {
    /// `false` for plans the cache does not take (an expression holding an encoding error).
    static func walk<Visitor: ShapeVisitor>(_ plan: borrowing CRUDQueryPlan, limit: CRUDQueryPlan.Limit?, dialect: SelectCache.Dialect,
                                            _ visitor: inout Visitor) -> Bool {
        visitor.token(dialect.identity)
        visitor.token(identity(ObjectIdentifier(plan.root)))
        if let filter = plan.filter {
            guard add(filter.node, &visitor) else { return false }
        }
        visitor.token(-1)
        for term in plan.order {
            visitor.token(term.column * 2 + (term.descending ? 1 : 0))
        }
        visitor.token(-2)
        if let limit, limit.max != nil || limit.skip > 0 {
            if let max = limit.max {
                visitor.token(1)
                visitor.value(.integer(Int64(max)))
            }
            if limit.skip > 0 {
                visitor.token(2)
                visitor.value(.integer(Int64(limit.skip)))
            }
        }
        if let rowLock = plan.rowLock { visitor.token(rowLock == .update ? -3 : -4) }
        return true
    }

    static func identity(_ object: ObjectIdentifier) -> Int {
        Int(bitPattern: object)
    }

    private static func column<Visitor: ShapeVisitor>(_ reference: CRUDColumnReference, _ visitor: inout Visitor) {
        visitor.token(identity(ObjectIdentifier(reference.model)))
        // A key path by identity; a column constant by position, negative so the two never meet.
        visitor.token(reference.keyPath.map { identity(ObjectIdentifier($0)) } ?? -1 - reference.column!)
        visitor.token(reference.function?.code ?? 0)
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

    private static func add<Visitor: ShapeVisitor>(_ node: CRUDBooleanExpression.Node, _ visitor: inout Visitor) -> Bool {
        switch node {
        case let .compare(reference, operation, value):
            column(reference, &visitor)
            // A pattern, not `==`: the derived equality compares payloads case by case.
            if case .null = value {
                visitor.token(11)
                visitor.token(operation.code)
            } else {
                visitor.token(10)
                visitor.token(operation.code)
                visitor.value(value)
            }
        case let .contained(reference, list, negated):
            column(reference, &visitor)
            var present = 0
            for value in list where value != .null { present += 1 }
            visitor.token(20 + (negated ? 1 : 0))
            visitor.token(present)
            visitor.token(present == list.count ? 0 : 1)
            for value in list where value != .null { visitor.value(value) }
        case let .like(reference, pattern, text, negated):
            column(reference, &visitor)
            let kind = switch pattern {
            case .contains: 0
            case .beginsWith: 1
            case .endsWith: 2
            }
            visitor.token(30 + (negated ? 1 : 0))
            visitor.token(kind)
            visitor.value(.text(pattern.pattern(text)))
        case let .and(left, right):
            visitor.token(40)
            return add(left, &visitor) && add(right, &visitor)
        case let .or(left, right):
            visitor.token(41)
            return add(left, &visitor) && add(right, &visitor)
        case let .not(inner):
            visitor.token(42)
            return add(inner, &visitor)
        case .invalid:
            return false
        }
        return true
    }
}

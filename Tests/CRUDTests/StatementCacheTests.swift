import CRUD
import Testing

@Suite("statement cache")
struct StatementCacheTests {
    final class Prepared {}

    @Test("a cached statement serves one user at a time; a second user's statement is not kept")
    func checkOut() {
        var cache = CRUDStatementCache<Prepared>(capacity: 2)
        let first = Prepared()
        #expect(cache.checkOut("a") == nil)
        #expect(cache.add(first, for: "a").kept)
        #expect(cache.checkOut("a") == nil, "in use")
        let second = Prepared()
        #expect(!cache.add(second, for: "a").kept)
        #expect(!cache.checkIn(second, for: "a"), "the driver finalizes the uncached one")
        #expect(cache.checkIn(first, for: "a"))
        #expect(cache.checkOut("a") === first)
    }

    @Test("when full, the oldest idle statement is evicted; statements in use never are")
    func eviction() {
        var cache = CRUDStatementCache<Prepared>(capacity: 2)
        let a = Prepared(), b = Prepared(), c = Prepared(), d = Prepared()
        _ = cache.add(a, for: "a")
        _ = cache.add(b, for: "b")
        _ = cache.checkIn(b, for: "b")
        let added = cache.add(c, for: "c")
        #expect(added.kept && added.evicted === b, "a is in use, so b goes")
        let full = cache.add(d, for: "d")
        #expect(!full.kept && full.evicted == nil, "everything is in use: d is not kept")
        #expect(Set(cache.removeAll().map(ObjectIdentifier.init)) == [ObjectIdentifier(a), ObjectIdentifier(c)])
    }
}

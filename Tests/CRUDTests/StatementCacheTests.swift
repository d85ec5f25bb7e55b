@_spi(CRUDDriver) import CRUD
import Testing

@Suite("statement cache")
struct StatementCacheTests {
    final class Prepared {}

    @Test("a cached statement serves one user at a time; a second user's statement is not kept")
    func checkOut() {
        var cache = CRUDStatementCache<Prepared>(capacity: 2)
        let first = Prepared()
        let before = cache.checkOut("a")
        #expect(before == nil)
        let kept = cache.add(first, for: "a").kept
        #expect(kept)
        let whileInUse = cache.checkOut("a")
        #expect(whileInUse == nil, "in use")
        let second = Prepared()
        let secondKept = cache.add(second, for: "a").kept
        #expect(!secondKept)
        let secondCheckedIn = cache.checkIn(second)
        #expect(!secondCheckedIn, "the driver finalizes the uncached one")
        let firstCheckedIn = cache.checkIn(first)
        #expect(firstCheckedIn)
        let again = cache.checkOut("a")
        #expect(again === first)
    }

    @Test("when full, the oldest idle statement is evicted; statements in use never are")
    func eviction() {
        var cache = CRUDStatementCache<Prepared>(capacity: 2)
        let a = Prepared(), b = Prepared(), c = Prepared(), d = Prepared()
        _ = cache.add(a, for: "a")
        _ = cache.add(b, for: "b")
        _ = cache.checkIn(b)
        let added = cache.add(c, for: "c")
        #expect(added.kept && added.evicted === b, "a is in use, so b goes")
        let full = cache.add(d, for: "d")
        #expect(!full.kept && full.evicted == nil, "everything is in use: d is not kept")
        let held = Set(cache.removeAll().map(ObjectIdentifier.init))
        #expect(held == [ObjectIdentifier(a), ObjectIdentifier(c)])
    }

    @Test("retiring drops every statement: idle ones at once, those in use when checked in")
    func retire() {
        var cache = CRUDStatementCache<Prepared>(capacity: 4)
        let idle = Prepared(), busy = Prepared()
        _ = cache.add(idle, for: "idle")
        _ = cache.checkIn(idle)
        _ = cache.add(busy, for: "busy")
        let retired = cache.retireAll()
        #expect(retired.map(ObjectIdentifier.init) == [ObjectIdentifier(idle)])
        let afterRetiring = cache.checkOut("idle")
        #expect(afterRetiring == nil, "prepared anew")
        let kept = cache.checkIn(busy)
        #expect(!kept, "the driver finalizes it")
        let fresh = Prepared()
        let freshKept = cache.add(fresh, for: "busy").kept
        #expect(freshKept)
        let freshCheckedIn = cache.checkIn(fresh)
        #expect(freshCheckedIn, "a statement prepared after retiring is kept")
    }
}

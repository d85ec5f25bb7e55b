@_spi(CRUDDriver) @testable import CRUD
import CRUDTesting
import Testing

/// What traces show of a statement: its operation, and its text without the values written into it.
@Suite("query text in traces")
struct QueryTextTests {
    @Test("string and number literals become ?, and names, placeholders and quoted identifiers stay")
    func literalsAreReplaced() {
        #expect(CRUDQueryText.sanitized(#"SELECT * FROM "t1" WHERE a = 'x''y' AND b = 42 AND c = $1 AND d = ? AND e > -3.5e2"#)
            == #"SELECT * FROM "t1" WHERE a = ? AND b = ? AND c = $1 AND d = ? AND e > -?"#)
        #expect(CRUDQueryText.sanitized("SELECT `a 'b` FROM t2 LIMIT 10") == "SELECT `a 'b` FROM t2 LIMIT ?")
        // SQLite's numbered placeholders, which its statements use: they showed as ?? in spans.
        #expect(CRUDQueryText.sanitized(#"SELECT * FROM "t" WHERE "id" = ?1 AND n = 7 LIMIT ?2"#) == #"SELECT * FROM "t" WHERE "id" = ?1 AND n = ? LIMIT ?2"#)
        #expect(CRUDQueryText.sanitized(#"SELECT "it's" FROM x WHERE y = 'unterminated"#) == #"SELECT "it's" FROM x WHERE y = ?"#)
        #expect(CRUDQueryText.sanitized("UPDATE t SET n = 0x1F, s = 'é' WHERE k IN (1, 2)") == "UPDATE t SET n = ?, s = ? WHERE k IN (?, ?)")
    }

    @Test("the operation is the first word, upper-cased")
    func operationIsTheFirstWord() {
        #expect(CRUDQueryText.operation(of: "select 1") == "SELECT")
        #expect(CRUDQueryText.operation(of: "  \n INSERT INTO t VALUES (?)") == "INSERT")
        #expect(CRUDQueryText.operation(of: "(SELECT 1) UNION (SELECT 2)") == "SELECT")
        #expect(CRUDQueryText.operation(of: "") == "")
    }

    @Test("without a bootstrapped metrics or tracing backend, a database has no instruments, so statements skip them")
    func nothingIsMeasuredWithoutABackend() {
        #expect(RecordingConfiguration().executor.instruments == nil)
    }
}

@testable import CRUD
import Testing

/// The names a statement mentions, which decide whether a MySQL transaction may have used a table.
@Suite("SQL names")
struct SQLNamesTests {
    func names(_ sql: String...) -> Set<String> {
        var names: Set<String> = []
        for text in sql { SQLNames.collect(from: text, into: &names) }
        return names
    }

    @Test("words and quoted identifiers, lowercased; doubled quotes inside a name are one quote")
    func identifiers() {
        #expect(names(#"INSERT INTO `Course` ("id", title) VALUES (?, ?)"#) == ["insert", "into", "course", "id", "title", "values"])
        #expect(names("SELECT t0.`a``b`, \"c\"\"d\" FROM db.Tab_1$") == ["select", "t0", "a`b", "c\"d", "from", "db", "tab_1$"])
        #expect(names("SELECT * FROM Élève") == ["select", "from", "élève"])
    }

    @Test("string literals are left out, with their doubled quotes and backslash escapes")
    func literals() {
        #expect(names(#"SELECT 'Course', 'it''s \' Pupil' FROM Grade"#) == ["select", "from", "grade"])
        #expect(names("SELECT `unclosed") == ["select", "unclosed"], "a name that runs to the end is still a name")
        #expect(names("", "'", "``") == [])
    }
}

import CRUD
import Foundation
import Testing

@Suite("bad input")
struct InjectionTests {
    static let nasty = ["It's", "\"quoted\"", "a; DROP TABLE \"order\"; --", "-- comment", "😀 emoji 👨‍👩‍👧", "tab\tnew\nline\r\u{1}\u{7}\u{1F}",
                        "'; DELETE FROM \"order\" WHERE '1'='1", "back\\slash", "%_", ""]

    @Test("values with quotes, semicolons, comments, emoji and control characters round-trip and are never spliced", arguments: Backend.all)
    func values(_ backend: Backend) throws { try values(backend.open()) }

    func values<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self)
        let pupils = Self.nasty.enumerated().map { Pupil(id: $0, name: $1, nickname: $1) }
        try db.table(Pupil.self).insert(pupils)
        #expect(try db.table(Pupil.self).order(by: \.id).select().map { $0 } == pupils)
        for pupil in pupils {
            #expect(try db.table(Pupil.self).where(\Pupil.name == pupil.name).select().map(\.id) == [pupil.id])
            #expect(try db.table(Pupil.self).where(\Pupil.name %=% pupil.name).count() >= 1)
        }
        try db.table(Pupil.self).where(\Pupil.name == Self.nasty[2]).update(Pupil(id: 2, name: Self.nasty[6], nickname: nil))
        #expect(try db.table(Pupil.self).count() == pupils.count)
        #expect(try db.table(Pupil.self).where(\Pupil.id == 2).first()?.name == Self.nasty[6])
    }

    @Test("table and column names that are keywords or hold quotes work everywhere", arguments: Backend.all)
    func identifiers(_ backend: Backend) throws { try identifiers(backend.open()) }

    func identifiers<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Awkward.self, policy: .reconcileTable)
        try db.create(Awkward.self, policy: .reconcileTable)
        let table = db.table(Awkward.self)
        try table.index(unique: true, \.group, \.order)
        try table.insert([
            Awkward(id: 1, group: "g", order: 2, quoted: "it's", select: true),
            Awkward(id: 2, group: "g", order: 1, quoted: nil, select: false),
        ])
        try db.table(AwkwardChild.self).insert([AwkwardChild(id: 1, from: 1, where_: "x"), AwkwardChild(id: 2, from: 1, where_: "y")])
        let rows = try table.order(by: \.order)
            .join(\.children, on: \.id, equals: \.from).order(descending: \.where_)
            .where(\Awkward.group == "g" && \AwkwardChild.where_ != "nothing")
            .select().map { $0 }
        #expect(rows.map(\.id) == [1])
        #expect(rows.first?.children?.map(\.where_) == ["y", "x"])
        #expect(try table.where(\Awkward.quoted == "it's").count() == 1)
        try table.where(\Awkward.id == 2).update(Awkward(id: 2, group: "h", order: 3, quoted: "\"", select: true), ignoreKeys: \.id)
        #expect(try table.where(\Awkward.group == "h").first()?.quoted == "\"")
        #expect(try TableColumns(db).columnNames(ofTable: "order") == ["id", "group", "order", "it's \"quoted\"", "select"])
        try table.where(\Awkward.select == true && \Awkward.order > 2).delete()
        #expect(try table.count() == 1)
    }
}

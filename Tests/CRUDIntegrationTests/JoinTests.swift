import CRUD
import CRUDSQLite
import Foundation
import Testing

@Suite("joins")
struct JoinTests {
    /// Ann takes Math and Art, Bob takes Math, Cy takes nothing; grades 90 and 70 for Ann, 80 for
    /// Bob, and one grade of nobody's; Ann and Bob are friends, Bob befriends Cy.
    static func school<C: DatabaseConfigurationProtocol>(_ configuration: C) throws -> Database<C> {
        let db = Database(configuration: configuration)
        try db.create(Pupil.self)
        try db.create(Enrollment.self)
        try db.create(Friendship.self)
        try db.table(Pupil.self).insert([Pupil(id: 1, name: "Ann"), Pupil(id: 2, name: "Bob"), Pupil(id: 3, name: "Cy")])
        try db.table(Course.self).insert([Course(id: 10, title: "Math"), Course(id: 11, title: "Art"), Course(id: 12, title: "Latin")])
        try db.table(Enrollment.self).insert([Enrollment(pupilId: 1, courseId: 10), Enrollment(pupilId: 1, courseId: 11), Enrollment(pupilId: 2, courseId: 10)])
        try db.table(Grade.self).insert([
            Grade(id: 1, pupilId: 1, score: 90), Grade(id: 2, pupilId: 1, score: 70), Grade(id: 3, pupilId: 2, score: 80),
            Grade(id: 4, pupilId: nil, score: 100),
        ])
        try db.table(Friendship.self).insert([Friendship(pupilId: 1, friendId: 2), Friendship(pupilId: 2, friendId: 1), Friendship(pupilId: 2, friendId: 3)])
        return db
    }

    @Test("parent-child: joined relations are filled, unjoined ones stay nil, no match gives []", arguments: Backend.all)
    func parentChild(_ backend: Backend) throws { try parentChild(backend.open()) }

    func parentChild<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.school(configuration)
        let pupils = try db.table(Pupil.self).order(by: \.id).join(\.grades, on: \.id, equals: \.pupilId).order(by: \.score).select().map { $0 }
        #expect(pupils.map(\.id) == [1, 2, 3])
        #expect(pupils.map { $0.grades?.map(\.score) } == [[70, 90], [80], []])
        #expect(pupils.allSatisfy { $0.courses == nil && $0.friends == nil })
        #expect(try db.table(Pupil.self).select().map { $0 }.allSatisfy { $0.grades == nil })
    }

    @Test("a child row that does not fit its model is a decoding error naming the child, thrown at select's try (SQLite keeps the text)")
    func childDecodingError() throws {
        let db = try Self.school(try SQLiteDatabaseConfiguration(Backend.temporaryFile("sqlite")))
        try db.sql("UPDATE \(db.quote("Grade")) SET \(db.quote("score")) = 'many' WHERE \(db.quote("id")) = 2")
        let query = try db.table(Pupil.self).order(by: \.id).join(\.grades, on: \.id, equals: \.pupilId)
        let error = #expect(throws: CRUDDecoderError.self) { try query.select() }
        #expect(error?.msg.contains("reading Grade") == true && error?.msg.contains("score") == true, "\(error?.msg ?? "")")
        #expect(try db.table(Pupil.self).order(by: \.id).select().map(\.id) == [1, 2, 3], "the connection is usable afterwards")
    }

    @Test("pivot and self-pivot joins", arguments: Backend.all)
    func pivots(_ backend: Backend) throws { try pivots(backend.open()) }

    func pivots<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.school(configuration)
        let withCourses = try db.table(Pupil.self).order(by: \.id)
            .join(\.courses, with: Enrollment.self, on: \.id, equals: \.pupilId, and: \.id, is: \.courseId).order(by: \.title)
            .select().map { $0 }
        #expect(withCourses.map { $0.courses?.map(\.title) } == [["Art", "Math"], ["Math"], []])
        let withFriends = try db.table(Pupil.self).order(by: \.id)
            .join(\.friends, with: Friendship.self, on: \.id, equals: \.pupilId, and: \.id, is: \.friendId).order(by: \.id)
            .select().map { $0 }
        #expect(withFriends.map { $0.friends?.map(\.name) } == [["Bob"], ["Ann", "Cy"], []])
    }

    @Test("several joins on one query, with order and limit per join", arguments: Backend.all)
    func severalJoins(_ backend: Backend) throws { try severalJoins(backend.open()) }

    func severalJoins<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.school(configuration)
        let query = try db.table(Pupil.self)
            .order(descending: \.name)
            .join(\.courses, with: Enrollment.self, on: \.id, equals: \.pupilId, and: \.id, is: \.courseId)
            .order(descending: \.title)
            .limit(1)
            .join(\.grades, on: \.id, equals: \.pupilId)
            .order(descending: \.score)
            .limit(1, skip: 1)
        let pupils = try query.select().map { $0 }
        #expect(pupils.map(\.name) == ["Cy", "Bob", "Ann"])
        #expect(pupils.map { $0.courses?.map(\.title) } == [[], ["Math"], ["Math"]], "limit 1 per pupil, titles descending")
        #expect(pupils.map { $0.grades?.map(\.score) } == [[], [], [70]], "skip 1, limit 1 per pupil, scores descending")
        #expect(try query.count() == 3)
        let firstOnly = try db.table(Pupil.self).order(by: \.name).limit(1)
            .join(\.grades, on: \.id, equals: \.pupilId).order(by: \.score).select().map { $0 }
        #expect(firstOnly.map { $0.grades?.map(\.score) } == [[70, 90]], "a limit before a join limits the parents")
    }

    @Test("a where naming a joined type filters parents and children, and count matches select", arguments: Backend.all)
    func filtering(_ backend: Backend) throws { try filtering(backend.open()) }

    func filtering<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = try Self.school(configuration)
        let highScores = try db.table(Pupil.self).order(by: \.id)
            .join(\.grades, on: \.id, equals: \.pupilId).order(by: \.score)
            .where(\Grade.score >= 80)
        let pupils = try highScores.select().map { $0 }
        #expect(pupils.map(\.name) == ["Ann", "Bob"])
        #expect(pupils.map { $0.grades?.map(\.score) } == [[90], [80]])
        #expect(try highScores.count() == pupils.count)

        let mathOrCy = try db.table(Pupil.self).order(by: \.id)
            .join(\.courses, with: Enrollment.self, on: \.id, equals: \.pupilId, and: \.id, is: \.courseId)
            .join(\.grades, on: \.id, equals: \.pupilId)
            .where(\Course.title == "Math" || \Pupil.name == "Cy")
        let found = try mathOrCy.select().map { $0 }
        #expect(found.map(\.name) == ["Ann", "Bob", "Cy"], "a parent without children can match through its own columns")
        #expect(found.map { $0.courses?.map(\.title) } == [["Math"], ["Math"], []])
        #expect(found.map { $0.grades?.count } == [2, 1, 0], "grades are not filtered by a condition on courses")
        #expect(try mathOrCy.count() == 3)

        let latin = try db.table(Pupil.self).join(\.courses, with: Enrollment.self, on: \.id, equals: \.pupilId, and: \.id, is: \.courseId)
            .where(\Course.title == "Latin")
        #expect(try latin.select().map { $0 }.isEmpty)
        #expect(try latin.count() == 0)
        #expect(try latin.first() == nil)

        let limited = try db.table(Pupil.self).order(by: \.id).limit(1)
            .join(\.grades, on: \.id, equals: \.pupilId).where(\Grade.score < 85)
        #expect(try limited.select().map { $0.grades?.map(\.score) } == [[70]])
        #expect(try limited.count() == 1)
    }

    @Test("NULL keys never match", arguments: Backend.all)
    func nullKeys(_ backend: Backend) throws { try nullKeys(backend.open()) }

    func nullKeys<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Owner.self)
        try db.table(Owner.self).insert([Owner(id: 1, code: "A"), Owner(id: 2, code: nil)])
        try db.table(Pet.self).insert([Pet(id: 1, ownerCode: "A"), Pet(id: 2, ownerCode: nil), Pet(id: 3, ownerCode: "B")])
        let owners = try db.table(Owner.self).order(by: \.id).join(\.pets, on: \.code, equals: \.ownerCode).order(by: \.id).select().map { $0 }
        #expect(owners.map { $0.pets?.map(\.id) } == [[1], []], "the NULL-keyed owner gets no pets, the NULL-keyed pet no owner")
        let school = try JoinTests.school(configuration)
        let graded = try school.table(Pupil.self).join(\.grades, on: \.id, equals: \.pupilId).select().map { $0 }
        #expect(!graded.contains { $0.grades?.contains { $0.pupilId == nil } == true })
    }

    @Test("self join, and join key paths that name no column", arguments: Backend.all)
    func selfJoinAndMistakes(_ backend: Backend) throws { try selfJoinAndMistakes(backend.open()) }

    func selfJoinAndMistakes<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(Me.self)
        try db.table(Me.self).insert([Me(id: 1, parentId: 0), Me(id: 2, parentId: 1), Me(id: 3, parentId: 1), Me(id: 4, parentId: 2)])
        let tree = try db.table(Me.self).order(by: \.id).join(\.mes, on: \.id, equals: \.parentId).order(by: \.id).where(\Me.id <= 2)
        #expect(try tree.select().map { $0.mes?.map(\.id) } == [[2, 3], [4]])
        #expect(try tree.count() == 2)
        #expect(throws: CRUDSQLGenError.self) { try db.table(Me.self).join(\.mes, on: \.id.bitWidth, equals: \.parentId) }
    }
}

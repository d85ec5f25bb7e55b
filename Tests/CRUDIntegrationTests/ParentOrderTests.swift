@_spi(CRUDDriver) import CRUD
import Foundation
import Testing

/// `orderParents`: the root rows of a join in the order of their children, on every backend.
@Suite("root rows ordered by their children")
struct ParentOrderTests {
    @Test("ascending by each parent's smallest child value, descending by its largest; childless parents as NULL; through a junction too",
          arguments: Backend.all)
    func parentsByChildren(_ backend: Backend) async throws {
        try await parentsByChildren(backend.open())
    }

    func parentsByChildren<C: DatabaseConfigurationProtocol>(_ configuration: C) async throws {
        let db = Database(configuration: configuration)
        for model in [Pupil.self, Grade.self, Course.self, Enrollment.self] as [any CRUDModel.Type] {
            try await Self.create(db, model)
        }
        try await db.table(Pupil.self).insert((1 ... 4).map { Pupil(id: $0, name: "pupil \($0)", nickname: nil) })
        try await db.table(Grade.self).insert([
            Grade(id: 1, pupilId: 1, score: 5), Grade(id: 2, pupilId: 1, score: 9), Grade(id: 3, pupilId: 2, score: 3),
            Grade(id: 4, pupilId: 3, score: 7), Grade(id: 5, pupilId: 3, score: 1),
        ])
        let graded = try db.table(Pupil.self).join(\.grades, on: \.id, equals: \.pupilId)
        // Smallest scores: pupil 3 has 1, pupil 2 has 3, pupil 1 has 5; pupil 4 has none, first as NULL.
        let earliest = try await graded.orderParents(by: \.score).order(by: \.score).select()
        #expect(earliest.map(\.id) == [4, 3, 2, 1])
        // The children keep their own order.
        #expect(earliest.map { $0.grades?.map(\.score) ?? [] } == [[], [1, 7], [3], [5, 9]])
        // Largest scores: 9, 7, 3; none last.
        #expect(try await graded.orderParents(descending: \.score).select().map(\.id) == [1, 3, 2, 4])
        #expect(try await graded.orderParents(descending: \.score).page(1, size: 2).items.map(\.id) == [1, 3])

        // Through a junction table: by each pupil's first course title.
        try await db.table(Course.self).insert([Course(id: 1, title: "Math"), Course(id: 2, title: "Art"), Course(id: 3, title: "Zoo")])
        try await db.table(Enrollment.self).insert([Enrollment(pupilId: 1, courseId: 1), Enrollment(pupilId: 2, courseId: 3),
                                                    Enrollment(pupilId: 2, courseId: 2), Enrollment(pupilId: 4, courseId: 3)])
        let enrolled = try db.table(Pupil.self).join(\.courses, with: Enrollment.self, on: \.id, equals: \.pupilId, and: \.id, is: \.courseId)
        #expect(try await enrolled.orderParents(by: \.title).select().map(\.id) == [3, 2, 1, 4])
        #expect(try await enrolled.orderParents(descending: \.title).select().map(\.id) == [2, 4, 1, 3])

        // Without a join just before, or naming another model, the query says so.
        let unjoined = await #expect(throws: CRUDSQLGenError.self) { try await db.table(Pupil.self).orderParents(by: \.name).select() }
        #expect(unjoined?.msg.contains("right after join") == true)
        try await db.shutdown()
    }

    static func create<C: DatabaseConfigurationProtocol>(_ db: Database<C>, _ model: any CRUDModel.Type) async throws {
        func create<M: CRUDModel>(_ type: M.Type) async throws { try await db.create(type, policy: .dropTable) }
        try await create(model)
    }
}

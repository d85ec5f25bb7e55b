import CRUD
import CRUDSQLite
import Foundation
import Testing

/// The Perfect-CRUD README's examples, as written there.
@Suite("Perfect-CRUD README")
struct ReadmeTests {
    @Test("General Usage finds Owen and Beru with their planet-12 numbers", arguments: Backend.all)
    func generalUsage(_ backend: Backend) throws { try generalUsage(backend.open()) }

    func generalUsage<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)

        // Create the table if it hasn't been done already.
        // Table creates are recursive by default, so "PhoneNumber" is also created here.
        try db.create(Person.self, policy: .reconcileTable)

        // Get a reference to the tables we will be inserting data into.
        let personTable = db.table(Person.self)
        let numbersTable = db.table(PhoneNumber.self)

        // Add an index for personId, if it does not already exist.
        try numbersTable.index(\.personId)

        // Insert some sample data.
        do {
            // Insert some sample data.
            let owen = Person(id: UUID(), firstName: "Owen", lastName: "Lars", phoneNumbers: nil)
            let beru = Person(id: UUID(), firstName: "Beru", lastName: "Lars", phoneNumbers: nil)

            // Insert the people
            try personTable.insert([owen, beru])

            // Give them some phone numbers
            try numbersTable.insert([
                PhoneNumber(personId: owen.id, planetCode: 12, number: "555-555-1212"),
                PhoneNumber(personId: owen.id, planetCode: 15, number: "555-555-2222"),
                PhoneNumber(personId: beru.id, planetCode: 12, number: "555-555-1212")])
        }

        // Perform a query.
        // Let's find all people with the last name of Lars which have a phone number on planet 12.
        let query = try personTable
                .order(by: \.lastName, \.firstName)
            .join(\.phoneNumbers, on: \.id, equals: \.personId)
                .order(descending: \.planetCode)
            .where(\Person.lastName == "Lars" && \PhoneNumber.planetCode == 12)
            .select()

        // Loop through the results and print the names.
        var found: [String] = []
        for user in query {
            // We joined PhoneNumbers, so we should have values here.
            guard let numbers = user.phoneNumbers else {
                continue
            }
            for number in numbers {
                print(number.number)
                found.append("\(user.firstName): \(number.number) @\(number.planetCode)")
            }
        }
        #expect(found == ["Beru: 555-555-1212 @12", "Owen: 555-555-1212 @12"])
        #expect(query.map(\.firstName) == ["Beru", "Owen"], "a stored Select yields its rows again")
    }

    @Test("Parent-child join", arguments: Backend.all)
    func parentChild(_ backend: Backend) throws { try parentChild(backend.open()) }

    func parentChild<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.transaction {
            try db.create(Parent.self, policy: [.shallow, .dropTable]).insert(
                Parent(id: 1, children: nil))
            try db.create(Child.self, policy: [.shallow, .dropTable]).insert(
                [Child(id: 1, parentId: 1),
                 Child(id: 2, parentId: 1),
                 Child(id: 3, parentId: 1)])
        }
        let join = try db.table(Parent.self)
            .join(\.children,
                  on: \.id,
                  equals: \.parentId)
            .where(\Parent.id == 1)
        let parent = try #require(try join.first(), "Failed to find parent id: 1")
        let children = try #require(parent.children, "Parent had no children")
        #expect(3 == children.count)
        for child in children {
            #expect(child.parentId == parent.id)
        }
    }

    @Test("Many-to-many join, both ways", arguments: Backend.all)
    func manyToMany(_ backend: Backend) throws { try manyToMany(backend.open()) }

    func manyToMany<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.transaction {
            try db.create(Student.self, policy: [.dropTable, .shallow]).insert(
                Student(id: 1))
            try db.create(Class.self, policy: [.dropTable, .shallow]).insert([
                Class(id: 1),
                Class(id: 2),
                Class(id: 3)])
            try db.create(StudentClasses.self, policy: [.dropTable, .shallow]).insert([
                StudentClasses(studentId: 1, classId: 1),
                StudentClasses(studentId: 1, classId: 2),
                StudentClasses(studentId: 1, classId: 3)])
        }
        let join = try db.table(Student.self)
            .join(\.classes,
                  with: StudentClasses.self,
                  on: \.id,
                  equals: \.studentId,
                  and: \.id,
                  is: \.classId)
            .where(\Student.id == 1)
        let student = try #require(try join.first(), "Failed to find student id: 1")
        let classes = try #require(student.classes, "Student had no classes")
        #expect(3 == classes.count)
        for aClass in classes {
            let join = try db.table(Class.self)
                .join(\.students,
                      with: StudentClasses.self,
                      on: \.id,
                      equals: \.classId,
                      and: \.id,
                      is: \.studentId)
                .where(\Class.id == aClass.id)
            let found = try #require(try join.first(), "Class with no students")
            #expect(nil != found.students?.first(where: { $0.id == student.id }), "Student not found in class")
        }
    }

    @Test("Self join", arguments: Backend.all)
    func selfJoin(_ backend: Backend) throws { try selfJoin(backend.open()) }

    func selfJoin<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.transaction {
            try db.create(Me.self, policy: .dropTable).insert([
                Me(id: 1, parentId: 0),
                Me(id: 2, parentId: 1),
                Me(id: 3, parentId: 1),
                Me(id: 4, parentId: 1),
                Me(id: 5, parentId: 1)])
        }
        let join = try db.table(Me.self)
            .join(\.mes, on: \.id, equals: \.parentId)
            .where(\Me.id == 1)
        let me = try #require(try join.first(), "Unable to find me.")
        let mes = try #require(me.mes, "Unable to find meesa.")
        #expect(mes.count == 4)
    }

    @Test("Self junction join (Perfect-CRUD's testSelfJunctionJoin)", arguments: Backend.all)
    func selfJunctionJoin(_ backend: Backend) throws { try selfJunctionJoin(backend.open()) }

    func selfJunctionJoin<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        typealias Me = SelfJunction.Me
        typealias Us = SelfJunction.Us
        let db = Database(configuration: configuration)
        try db.transaction {
            try db.create(Me.self, policy: .dropTable)
                .insert((1...5).map { .init(id: $0) })
            try db.create(Us.self, policy: .dropTable)
                .insert((2...5).map { .init(you: 1, them: $0) })
        }
        let join = try db.table(Me.self)
            .join(\.us,
                  with: Us.self,
                  on: \.id,
                  equals: \.you,
                  and: \.id,
                  is: \.them)
            .where(\Me.id == 1)
        let me = try #require(try join.first(), "Unable to find me.")
        let us = try #require(me.us, "Unable to find us.")
        #expect(us.count == 4)
    }

    @Test("Where, update with setKeys, delete, count, as the README shows them", arguments: Backend.all)
    func operations(_ backend: Backend) throws { try operations(backend.open()) }

    func operations<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(TestTable1.self, primaryKey: \.id, policy: .reconcileTable)
        let table = db.table(TestTable1.self)
        // insert a new object and then find it
        let newOne = TestTable1(id: 2000, name: "New One", integer: 40, double: nil, blob: nil, subTables: nil)
        try table.insert(newOne)
        // search for this one object by id
        let query = table.where(\TestTable1.id == newOne.id)
        let foundNewOne = try #require(try query.first())
        #expect(foundNewOne.name == "New One")

        let newId: Int = try db.transaction {
            let newOne2 = TestTable1(id: 2000, name: "New One Updated", integer: 41, double: nil, blob: nil, subTables: nil)
            try db.table(TestTable1.self)
                .where(\TestTable1.id == newOne.id)
                .update(newOne2, setKeys: \.name)
            return newOne2.id
        }
        let j2 = try db.table(TestTable1.self)
            .where(\TestTable1.id == newId)
            .select().map { $0 }
        #expect(1 == j2.count)
        #expect(2000 == j2[0].id)
        #expect("New One Updated" == j2[0].name)
        #expect(40 == j2[0].integer)

        let newTwo = TestTable1(id: 2001, name: "New One", integer: 40, double: nil, blob: nil, subTables: nil)
        try table.insert([newTwo], setKeys: \.id, \.name)
        let blobQuery = table.where(\TestTable1.blob == nil)
        let values = try blobQuery.select().map { $0 }
        let count = try blobQuery.count()
        #expect(count == values.count)
        #expect(count == 2)

        let j1 = try query.select().map { $0 }
        #expect(j1.count == 1)
        try query.delete()
        let j3 = try query.select().map { $0 }
        #expect(j3.count == 0)
        #expect(try table.count() == 1)
    }

    @Test("Codable Types: CodingKeys columns, custom table name, joined subTables", arguments: Backend.all)
    func codableTypes(_ backend: Backend) throws { try codableTypes(backend.open()) }

    func codableTypes<C: DatabaseConfigurationProtocol>(_ configuration: C) throws {
        let db = Database(configuration: configuration)
        try db.create(TestTable1.self, policy: .dropTable)
        let now = Date(timeIntervalSince1970: 1_700_000_000.25)
        try db.table(TestTable1.self).insert(TestTable1(id: 1, name: "one", integer: 7, double: 1.5, blob: [1, 2], subTables: nil))
        try db.table(TestTable2.self).insert([
            TestTable2(id: UUID(), parentId: 1, date: now, name: "b", int: nil, doub: nil, blob: nil),
            TestTable2(id: UUID(), parentId: 1, date: now.addingTimeInterval(-60), name: "a", int: 3, doub: 2.5, blob: [9]),
        ])
        let columns = try TableColumns(db).columnNames(ofTable: "test_table_1")
        #expect(columns == ["id", "name", "int", "doub", "blob"])
        let parent = try #require(try db.table(TestTable1.self).join(\.subTables, on: \.id, equals: \.parentId).order(by: \.date).first())
        #expect(parent.subTables?.map(\.name) == ["a", "b"])
        #expect(parent.blob == [1, 2])
    }
}

import Foundation
import Testing

/// Whether this run is one of CI's second passes over the integration suite (another backend
/// wrapper), where the pages' examples, which need no database, were already compiled.
let isRepeatedIntegrationPass = ["CRUD_TEST_ANY_DATABASE", "CRUD_TEST_POSTGRES_SERVER_CONNECTIONS", "CRUD_TEST_POSTGRES_POOLER"]
    .contains { ProcessInfo.processInfo.environment[$0].map { !$0.isEmpty } ?? false }

/// Every Swift example of the README and the DocC articles is type-checked by `swiftc` against the
/// built modules, as a user's code would be, with its page's line in every diagnostic. What an example
/// takes as given (its models, the `db` it uses, the statement it is part of) is written below, once
/// per example; an example's `…` stands for code of the reader's own and is left out. Examples that
/// use Hummingbird are checked against the example server's build, when `CRUD_EXAMPLE_SERVER` names it.
@Suite("documentation examples compile", .enabled(if: !isRepeatedIntegrationPass, "compiled in the first pass"))
struct DocumentationCompileTests {
    static let examples = DocumentationExample.all
    static let libraryExamples = examples.filter { settings[$0.key]?.kind != .hummingbird }
    static let hummingbirdExamples = examples.filter { settings[$0.key]?.kind == .hummingbird }

    @Test("every Swift block of the pages is read, and each has its setting here, and each setting its block")
    func everyExampleHasASetting() throws {
        #expect(Self.examples.count >= 45, "\(Self.examples.count) examples read")
        let keys = Set(Self.examples.map(\.key))
        for example in Self.examples {
            #expect(Self.settings[example.key] != nil, "\(example.page):\(example.line): no setting for \(example.key); add one to DocumentationCompileTests.settings")
        }
        for key in Self.settings.keys {
            #expect(keys.contains(key), "the setting for \(key) names no example: the page changed")
        }
    }

    @Test("an example that is wrong fails to compile, at its page's line")
    func wrongExampleFails() async throws {
        let example = DocumentationExample(page: "Sources/CRUD/Documentation.docc/Wrong.md", number: 1, line: 40,
                                           code: ["let db = Database(configuration: try SQLiteDatabaseConfiguration(\":memory:\"))",
                                                  "let n = try db.table(Person.self).where(\\Person.heigth == nil).count()"])
        let setting = ExampleSetting(models: Self.queryModels, given: "import CRUDSQLite")
        let failure = try await onThread { try ExampleCompiler.check(example, setting, uses: []) }
        #expect(failure?.contains("Wrong.md:41:") == true, "\(failure ?? "compiled")")
        #expect(failure?.contains("heigth") == true, "\(failure ?? "compiled")")
        let right = DocumentationExample(page: example.page, number: 1, line: 40,
                                         code: [example.code[0], "let n = try db.table(Person.self).where(\\Person.height == nil).count()"])
        #expect(try await onThread { try ExampleCompiler.check(right, setting, uses: []) } == nil)
    }

    @Test("compiles against the library", arguments: libraryExamples)
    func compiles(_ example: DocumentationExample) async throws {
        let setting = try #require(Self.settings[example.key])
        #if !MySQL
        if setting.mysql { return }
        #endif
        #if !ServiceLifecycle
        if setting.serviceLifecycle { return }
        #endif
        let uses = setting.uses.compactMap { key in Self.examples.first { $0.key == key } }
        #expect(uses.count == setting.uses.count, "\(example.key) continues \(setting.uses)")
        let failure = try await onThread { try ExampleCompiler.check(example, setting, uses: uses) }
        #expect(failure == nil, "\(example.page):\(example.line): \(failure ?? "")")
    }

    @Test("compiles against the example server's Hummingbird", .enabled(if: exampleServerBinary != nil, "CRUD_EXAMPLE_SERVER names no built todos-server"),
          arguments: hummingbirdExamples)
    func compilesWithHummingbird(_ example: DocumentationExample) async throws {
        let setting = try #require(Self.settings[example.key])
        let server = try #require(exampleServerBinary)
        let failure = try await onThread { try ExampleCompiler.check(example, setting, uses: [], exampleServer: server) }
        #expect(failure == nil, "\(example.page):\(example.line): \(failure ?? "")")
    }

    // MARK: - What the examples take as given

    /// The README's people, with a height, an age and a town as the query chain article uses them.
    static let queryModels = """
        struct PhoneNumber: CRUDModel { let personId: Int; let planetCode: Int; let number: String }
        struct Person: CRUDModel {
            let id: Int
            var firstName: String
            var lastName: String
            var height: Int?
            var age: Int
            var city: String
            var phoneNumbers: [PhoneNumber]?
        }
        struct Bicycle: CRUDModel { var id: Int?; var name: String; var color: String }
        """
    static let queryValues = """
        let path = "app.sqlite"
        let owen = Person(id: 1, firstName: "Owen", lastName: "Lars", height: 178, age: 60, city: "Anchorhead", phoneNumbers: nil)
        let beru = Person(id: 2, firstName: "Beru", lastName: "Lars", height: 165, age: 58, city: "Anchorhead", phoneNumbers: nil)
        let numbers = [PhoneNumber(personId: 1, planetCode: 12, number: "555-555-1212")]
        let bike = Bicycle(id: nil, name: "Roadie", color: "red")
        """
    static let sqlite = """
        import CRUDSQLite
        let db = Database(configuration: try SQLiteDatabaseConfiguration(":memory:"))
        """
    static let postgres = """
        import CRUDPostgres
        let db = Database(configuration: try PostgresDatabaseConfiguration(database: "app", host: "localhost"))
        """
    static let anyDatabase = """
        import CRUDSQLite
        let db = try AnyDatabase(url: "sqlite::memory:", drivers: [.sqlite])
        """
    static let todo = "struct Todo: CRUDModel, Codable { let id: Int; var title: String; var done: Bool }"
    static let schemaHistory = """
        enum SchemaHistory {
            static let migrations: [CRUDSchemaMigration] = []
            static let migration0001 = CRUDSchemaMigration("0001 todos", changes: [], schema: CRUDSchema([]))
        }
        """
    static let router = """
        import Hummingbird
        let router = Router()
        """

    static let settings: [String: ExampleSetting] = [
        "README.md#1": ExampleSetting(kind: .manifest),
        "README.md#2": ExampleSetting(),
        "README.md#3": ExampleSetting(given: """
            let owen = Person(id: UUID(), firstName: "Owen", lastName: "Lars", phoneNumbers: nil)
            let beru = Person(id: UUID(), firstName: "Beru", lastName: "Lars", phoneNumbers: nil)
            let planet: Int? = 12
            """, uses: ["README.md#2"]),
        "CRUD.md#1": ExampleSetting(),
        "ColumnValues.md#1": ExampleSetting(given: """
            var customer = Customer(id: 1, address: Address(street: "Main Street 1", city: "Oslo"), tags: CRUDJSON(["new"]), scores: nil)
            """),
        "GeneratedCode.md#1": ExampleSetting(kind: .generated, models: "struct Bicycle: CRUDModel { let id: Int?; var name: String; var color: String }"),
        "GeneratedCode.md#2": ExampleSetting(kind: .generated, models: """
            struct Todo: CRUDModel, CRUDTimestamped { var id: Int?; var title: String; var createdAt: Date?; var updatedAt: Date? }
            """),
        "GettingStarted.md#1": ExampleSetting(kind: .manifest),
        "GettingStarted.md#2": ExampleSetting(),
        "GettingStarted.md#3": ExampleSetting(models: todo),
        "Logging.md#1": ExampleSetting(kind: .hummingbird, given: [router, anyDatabase, todo].joined(separator: "\n")),
        "MetricsAndTracing.md#1": ExampleSetting(given: """
            import CRUDPostgres
            let prometheus = NOOPMetricsHandler.instance
            let tracer = NoOpTracer()
            let url = "postgresql://app@localhost/app"
            """),
        "MetricsAndTracing.md#2": ExampleSetting(kind: .hummingbird, given: [router, anyDatabase, todo].joined(separator: "\n")),
        "ObservingChanges.md#1": ExampleSetting(models: "struct Bicycle: CRUDModel { let id: Int; var name: String; var color: String }", given: sqlite),
        "QueryChain.md#1": ExampleSetting(models: queryModels, given: queryValues),
        "QueryChain.md#2": ExampleSetting(models: queryModels, given: sqlite),
        "Repository.md#1": ExampleSetting(models: "struct Bicycle: CRUDModel { let id: Int; var name: String }", given: sqlite),
        "ScalingOut.md#1": ExampleSetting(given: "import CRUDPostgres\nlet secret = \"secret\""),
        "ScalingOut.md#2": ExampleSetting(given: """
            import CRUDPostgres
            let secret = "secret"
            let servers = [PostgresHost("db1.internal"), PostgresHost("db2.internal"), PostgresHost("db3.internal")]
            """),
        "ScalingOut.md#3": ExampleSetting(models: todo, given: postgres + "\nlet todo = Todo(id: 1, title: \"Write\", done: false)"),
        "ScalingOut.md#4": ExampleSetting(given: "import CRUDPostgres\nlet secret = \"secret\""),
        "ScalingOut.md#5": ExampleSetting(given: "import CRUDMySQL\nlet secret = \"secret\"", mysql: true),
        "SchemaMigrations.md#1": ExampleSetting(given: "enum SchemaHistory {}"),
        "SchemaMigrations.md#2": ExampleSetting(given: [postgres, schemaHistory].joined(separator: "\n")),
        "SchemaMigrations.md#3": ExampleSetting(given: [postgres, schemaHistory, "var migrator = CRUDMigrator<PostgresDatabaseConfiguration>()"]
            .joined(separator: "\n")),
        "SchemaMigrations.md#4": ExampleSetting(given: [postgres, schemaHistory, "var migrator = CRUDMigrator<PostgresDatabaseConfiguration>()"]
            .joined(separator: "\n")),
        "SchemaMigrations.md#5": ExampleSetting(models: "struct Score: CRUDModel { let id: Int; var player: String; var points: Int; var bonus: Double }",
                                                given: [postgres, "var migrator = CRUDMigrator<PostgresDatabaseConfiguration>()"].joined(separator: "\n")),
        "TransactionsAndConcurrency.md#1": ExampleSetting(models: queryModels, given: "import CRUDSQLite\n" + queryValues),
        "UsingCRUDInAServer.md#1": ExampleSetting(kind: .manifest, before: "let package = Package(name: \"App\", dependencies: [", after: "])"),
        "UsingCRUDInAServer.md#2": ExampleSetting(),
        "UsingCRUDInAServer.md#3": ExampleSetting(given: [anyDatabase, schemaHistory].joined(separator: "\n")),
        "UsingCRUDInAServer.md#4": ExampleSetting(given: """
            import CRUDPostgres
            import CRUDSQLite
            let environment = ProcessInfo.processInfo.environment
            """),
        "UsingCRUDInAServer.md#5": ExampleSetting(given: anyDatabase + """

            let newUser = User(id: 0, name: "Ann", email: "ann@example.com", todos: nil)
            let firstTodo: String? = "Write"
            """, uses: ["UsingCRUDInAServer.md#2"]),
        "UsingCRUDInAServer.md#6": ExampleSetting(given: anyDatabase + "\nlet id = 1", uses: ["UsingCRUDInAServer.md#2"]),
        "UsingCRUDInAServer.md#7": ExampleSetting(given: anyDatabase + """

            let done: Bool? = nil
            let number = 1, size = 20
            """, uses: ["UsingCRUDInAServer.md#2"]),
        "UsingCRUDInAServer.md#8": ExampleSetting(given: anyDatabase + """

            struct TodoChanges { var title: String?; var done: Bool? }
            let changes = TodoChanges(title: "Write", done: nil)
            let values = Todo(id: 1, userId: 1, title: "Write", done: false)
            let id = 1
            """, uses: ["UsingCRUDInAServer.md#2"], before: "try await db.transaction { tx in ", after: "}"),
        "UsingCRUDInAServer.md#9": ExampleSetting(kind: .hummingbird, given: router + "\nfunc slowReport(seconds: Double) async throws -> String { \"\" }"),
        "UsingCRUDInAServer.md#10": ExampleSetting(kind: .hummingbird, given: "import Hummingbird",
                                                   before: "func handle(_ db: AnyDatabase) async throws { do { try await db.ping() } ", after: "}"),
        "UsingCRUDInAServer.md#11": ExampleSetting(kind: .hummingbird, given: "import Hummingbird"),
        "UsingCRUDInAServer.md#12": ExampleSetting(given: anyDatabase + """

            import CRUDServiceLifecycle
            import Logging
            import ServiceLifecycle
            struct App: Service { func run() async throws {} }
            let app = App()
            let logger = Logger(label: "todos")
            """, serviceLifecycle: true),
        "WritesAndKeys.md#1": ExampleSetting(models: writeModels),
        "WritesAndKeys.md#2": ExampleSetting(models: writeModels),
        "WritesAndKeys.md#3": ExampleSetting(),
        "WritesAndKeys.md#4": ExampleSetting(models: writeModels, given: sqlite + """

            let bike = Bicycle(id: 1, name: "Roadie", color: "red", wheels: 2, gears: 21, weight: 9.5, ownerId: nil)
            let other = Bicycle(id: 2, name: "Trike", color: "blue", wheels: 3, gears: 1, weight: 14, ownerId: nil)
            """),
        "WritesAndKeys.md#5": ExampleSetting(given: sqlite + """

            let todos = db.table(Todo.self)
            let todo = Todo(id: 1, title: "Water the plants")
            """),
        "CRUDMySQL.md#1": ExampleSetting(alternatives: true, mysql: true),
        "CRUDPostgres.md#1": ExampleSetting(given: "let secret = \"secret\"", alternatives: true),
        "CRUDTesting.md#1": ExampleSetting(models: "struct Person: CRUDModel { let id: Int; var name: String; var age: Int }",
                                           given: "import Testing\nimport CRUDSQLite"),
    ]

    /// The write article's bicycles and their owners.
    static let writeModels = """
        struct Person: CRUDModel { let id: Int; var name: String }
        struct Bicycle: CRUDModel { var id: Int?; var name: String; var color: String; var wheels: Int; var gears: Int; var weight: Double; var ownerId: Int? }
        """
}

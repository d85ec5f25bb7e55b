// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "CRUD",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CRUD", targets: ["CRUD"]),
        .library(name: "CRUDSQLite", targets: ["CRUDSQLite"]),
        .library(name: "CRUDPostgres", targets: ["CRUDPostgres"]),
        .library(name: "CRUDMySQL", targets: ["CRUDMySQL"]),
        .library(name: "CRUDTesting", targets: ["CRUDTesting"]),
        .library(name: "CRUDServiceLifecycle", targets: ["CRUDServiceLifecycle"]),
        .executable(name: "crud-gen", targets: ["crud-gen"]),
        .plugin(name: "CRUDPlugin", targets: ["CRUDPlugin"]),
        .plugin(name: "CRUDMigrationsPlugin", targets: ["CRUDMigrationsPlugin"]),
    ],
    traits: [
        .trait(name: "MySQL", description: "The MySQL and MariaDB driver (CRUDMySQL) over MariaDB Connector/C, which needs "
            + "libmariadb-dev; off by default, so that SQLite and PostgreSQL users never need it"),
        .trait(name: "ServiceLifecycle", description: "CRUDServiceLifecycle's DatabaseService, over swift-service-lifecycle; off by "
            + "default, so that packages that do not use it never resolve that dependency"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Only under the ServiceLifecycle trait: without it, SwiftPM does not resolve the package.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // Code generation: lexer, parser, model analysis, emitter. Standard library and Foundation only.
        .target(name: "CRUDGenerator"),
        .executableTarget(name: "crud-gen", dependencies: ["CRUDGenerator"]),
        .plugin(name: "CRUDPlugin", capability: .buildTool(), dependencies: ["crud-gen"]),
        // `swift package crud-migrations generate <name>`: the next frozen migration step of a target.
        .plugin(
            name: "CRUDMigrationsPlugin",
            capability: .command(
                intent: .custom(verb: "crud-migrations", description: "Writes the next frozen migration step of a target's CRUD models"),
                permissions: [.writeToPackageDirectory(reason: "crud-migrations writes the step into the target's Migrations folder")]
            ),
            dependencies: ["crud-gen"]
        ),

        // Runtime: models, values, the query chain, SQL building, transactions, logging, errors.
        // Logs, metrics and traces through the server ecosystem's API packages, which cost nothing
        // until the app bootstraps a backend.
        .target(name: "CRUD", dependencies: [
            .product(name: "Logging", package: "swift-log"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            "CEventPoll",
        ]),
        // Linux's epoll, for the runtime's event loop.
        .systemLibrary(name: "CEventPoll"),

        // SQLite driver over the system's libsqlite3.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        .target(name: "CRUDSQLite", dependencies: ["CRUD", "CSQLite"]),

        // PostgreSQL driver over the system's libpq.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(name: "CRUDPostgres", dependencies: ["CRUD", "CLibPQ"]),

        // MySQL and MariaDB driver over the MariaDB Connector/C (which speaks to both servers), built
        // with the MySQL trait only: without it the module holds nothing but a stand-in saying so.
        .systemLibrary(
            name: "CMariaDB",
            pkgConfig: "libmariadb",
            providers: [.apt(["libmariadb-dev"]), .brew(["mariadb-connector-c"])]
        ),
        .target(name: "CRUDMySQL", dependencies: ["CRUD", .target(name: "CMariaDB", condition: .when(traits: ["MySQL"]))]),

        // A test double for users: a connection that records SQL and bound values instead of running them.
        .target(name: "CRUDTesting", dependencies: ["CRUD"]),

        // A database as a swift-service-lifecycle service, for servers that stop through a ServiceGroup;
        // built with the ServiceLifecycle trait only, as CRUDMySQL is with MySQL.
        .target(name: "CRUDServiceLifecycle", dependencies: [
            "CRUD", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
        ]),

        // The demo the README's first command runs.
        .executableTarget(
            name: "crud-demo",
            dependencies: ["CRUD", "CRUDSQLite", "CRUDPostgres", "CRUDMySQL"],
            plugins: ["CRUDPlugin"]
        ),

        // A child process for the integration tests: exit-time logging, kill -9 durability, migrators in
        // several processes.
        .executableTarget(
            name: "crud-test-probe",
            dependencies: ["CRUD", "CRUDSQLite", "CRUDPostgres", "CRUDMySQL"],
            path: "Tests/Probes/crud-test-probe",
            plugins: ["CRUDPlugin"]
        ),
        .testTarget(
            name: "CRUDGeneratorTests",
            dependencies: ["CRUDGenerator"],
            exclude: ["Snapshots"]
        ),
        // Every sample model set in Schemas/, compiled through the real plugin.
        .testTarget(
            name: "CRUDSchemaTests",
            dependencies: ["CRUD"],
            plugins: ["CRUDPlugin"]
        ),
        // SQL building and runtime behaviour that needs no database, through CRUDTesting.
        .testTarget(
            name: "CRUDTests",
            dependencies: ["CRUD", "CRUDTesting"],
            plugins: ["CRUDPlugin"]
        ),
        // The Perfect-CRUD README end to end against real databases.
        .testTarget(
            name: "CRUDIntegrationTests",
            dependencies: [
                "CRUD", "CRUDSQLite", "CRUDPostgres", "CRUDMySQL", "CRUDServiceLifecycle", .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
            ],
            plugins: ["CRUDPlugin"]
        ),
    ]
)

// Documentation: `CRUD_DOCS=1 swift package generate-documentation --target CRUD` (see the README).
// Only then does the package depend on swift-docc-plugin, so users who do not build the docs never
// resolve it.
if Context.environment["CRUD_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

// swift-tools-version:6.2
import PackageDescription

// Side-by-side measurements of CRUD against hand-written sqlite3, libpq and Connector/C calls, and GRDB. Run in release:
// swift run -c release --package-path Benchmarks crud-bench
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // With its MySQL driver, which the MySQL rows compare with raw Connector/C.
        .package(name: "CRUD", path: "..", traits: ["MySQL"]),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The server ecosystem's PostgreSQL client, which the PostgreSQL rows compare with too.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // Data, checksums, schema and the harness's view of an implementation.
        .target(name: "BenchCore"),
        // Each implementation in its own module, so the two SQLite module maps (CRUD's and GRDB's)
        // never meet in one Swift module.
        .target(name: "BenchRaw", dependencies: ["BenchCore", .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .systemLibrary(name: "CLibPQBench", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "BenchPostgresRaw", dependencies: ["BenchCore", "CLibPQBench"]),
        .systemLibrary(name: "CMariaDBBench", pkgConfig: "libmariadb", providers: [.apt(["libmariadb-dev"])]),
        .target(name: "BenchMySQLRaw", dependencies: ["BenchCore", "CMariaDBBench"]),
        .target(name: "BenchPostgresNIO", dependencies: ["BenchCore", .product(name: "PostgresNIO", package: "postgres-nio")]),
        .target(
            name: "BenchCRUD",
            dependencies: [
                "BenchCore", .product(name: "CRUD", package: "CRUD"), .product(name: "CRUDSQLite", package: "CRUD"),
                .product(name: "CRUDPostgres", package: "CRUD"), .product(name: "CRUDMySQL", package: "CRUD"),
            ],
            plugins: [.plugin(name: "CRUDPlugin", package: "CRUD")]
        ),
        .target(name: "BenchGRDB", dependencies: ["BenchCore", .product(name: "GRDB", package: "GRDB.swift")]),
        // The soak's measure of the C heap. DWARF 4: this machine's valgrind (3.19) gives up on the
        // DWARF 5 that clang writes by default, and callgrind must read crud-bench.
        .target(name: "CHeap", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .executableTarget(name: "crud-bench", dependencies: [
            "BenchCore", "BenchRaw", "BenchPostgresRaw", "BenchMySQLRaw", "BenchCRUD", "BenchGRDB", "BenchPostgresNIO", "CHeap",
            .product(name: "CRUD", package: "CRUD"), .product(name: "CRUDMySQL", package: "CRUD"),
            .product(name: "CRUDSQLite", package: "CRUD"),
        ], swiftSettings: [
            // The MariaDB support it shares with the tests is compiled there under CRUD's MySQL trait.
            .define("MySQL"),
        ]),
    ]
)

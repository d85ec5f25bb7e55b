// swift-tools-version:6.2
import PackageDescription

// A todos service on Hummingbird 2, written as CRUD's articles recommend: the example the
// "Using CRUD in a server" article walks through. SQLite by default, PostgreSQL by URL:
//   swift run --package-path Examples/Todos todos-server                        # todos.sqlite, port 8080
//   DATABASE_URL=postgres://user@localhost/todos PORT=8081 swift run --package-path Examples/Todos todos-server
let package = Package(
    name: "Todos",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "CRUD", path: "../..", traits: ["ServiceLifecycle"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "todos-server",
            dependencies: [
                .product(name: "CRUD", package: "CRUD"),
                .product(name: "CRUDSQLite", package: "CRUD"),
                .product(name: "CRUDPostgres", package: "CRUD"),
                .product(name: "CRUDServiceLifecycle", package: "CRUD"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: [.plugin(name: "CRUDPlugin", package: "CRUD")]
        ),
    ]
)

// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "CRUD",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CRUD", targets: ["CRUD"]),
        .executable(name: "crud-gen", targets: ["crud-gen"]),
        .plugin(name: "CRUDPlugin", targets: ["CRUDPlugin"]),
    ],
    targets: [
        // Code generation: lexer, parser, model analysis, emitter. Standard library and Foundation only.
        .target(name: "CRUDGenerator"),
        .executableTarget(name: "crud-gen", dependencies: ["CRUDGenerator"]),
        .plugin(name: "CRUDPlugin", capability: .buildTool(), dependencies: ["crud-gen"]),

        // Runtime: the protocols and types generated code conforms to and uses.
        .target(name: "CRUD"),

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
    ]
)

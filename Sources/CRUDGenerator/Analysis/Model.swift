/// A model as the emitter needs it: every name resolved, every rule checked.
struct Model {
    /// The dotted name from file scope (`Outer.Inner`).
    var qualifiedName: String
    /// `"public "`, `"package "` or `""`: the access the generated members need.
    var accessPrefix: String
    var tableName: String
    var columns: [ModelColumn]
    /// Position in `columns` of the property named `id`.
    var primaryKey: Int?
    var relations: [ModelRelation]
    /// Where `createdAt` and `updatedAt` are, for a `CRUDTimestamped` model.
    var timestamps: ModelTimestamps?
    /// The arguments of Swift's synthesized memberwise initializer, in its order, as positions in
    /// `columns` followed by `relations`; `nil` when the struct has none the generated file can call.
    var memberwiseOrder: [Int]?
    /// The `#if` condition the model exists under, or `nil`.
    var condition: String?
    /// The path of the file that declares the struct (as `SourceFile.path`) and its 1-based line.
    var declaredIn: (path: String, line: Int)
    /// The values of `static let crudConstraints` and `crudIndexes`, where declared.
    var constraintsValue: DeclaredValue?
    var indexesValue: DeclaredValue?
    /// The value of `static let crudNeverReusesKeys`, where declared.
    var neverReusesKeysValue: DeclaredValue?
}

/// A static property's value in the user's source, for reading it without running code.
struct DeclaredValue {
    var file: SourceFile
    var range: Range<Int>
}

/// How a column is stored: known from its type, or the `crudColumnType` its type declares, which
/// is read only where migrations need it, never on every build.
enum DeclaredStorage {
    case known(ColumnStorage)
    case declared(DeclaredValue)
}

struct ModelColumn {
    /// The Swift property name.
    var property: String
    /// The column's name in the database.
    var name: String
    /// The property's type as Swift source, `?` for optionals.
    var swiftType: String
    var isOptional: Bool
    /// How the column is stored, where the generator can tell without running code.
    var storage: DeclaredStorage?
    /// Where the property is declared: what a warning about its column points at.
    var line: Int = 0
    var column: Int = 0
    /// The column's earlier name, from a `// crud-migrations: renamed from "old"` comment on the
    /// property's line or the line above it.
    var renamedFrom: String?
}

/// The positions in `Model.columns` of the columns CRUD fills with the time of a write.
struct ModelTimestamps {
    var createdAt: Int?
    var updatedAt: Int?
}

/// The protocols whose listing makes a struct a model.
enum ModelProtocols {
    static let timestamped = "CRUDTimestamped"
    static let names = ["CRUDModel", timestamped]
}

struct ModelRelation {
    var property: String
    /// The qualified name of the related model.
    var target: String
}

/// A `RawRepresentable` enum used as a column type that does not yet declare `CRUDValue`: the
/// generator adds the conformance, whose implementation the runtime provides.
struct ValueConformance: Hashable {
    var qualifiedName: String
    var condition: String?
}

/// An import declaration of an input file, repeated in the generated file so that column types from
/// other modules resolve there too.
struct ImportDeclaration: Hashable {
    var text: String
    var condition: String?
}

/// A model that names its own table instead of using its type name.
///
/// Declare it as `static let tableName = "literal"`: the generator reads the literal into the schema,
/// so the name is known without running code.
public protocol TableNameProvider {
    /// The table's name in the database.
    static var tableName: String { get }
}

/// A value a retype would change: where it is, and what it would not fit.
public struct CRUDLossyValue: Sendable, Hashable, CustomStringConvertible {
    /// The table and the column, by the names they have before the change.
    public let table: String, column: String
    /// The row's primary key column and its value, where the table has a key.
    public let keyColumn: String?, keyValue: String?
    /// The value, as written in messages.
    public let value: String
    /// The type it does not fit exactly.
    public let type: CRUDColumnType

    public var description: String {
        "\"\(table)\".\"\(column)\" holds \(value)"
            + (keyColumn.flatMap { column in keyValue.map { " in the row whose \"\(column)\" is \($0)" } } ?? "")
            + ", which a \(type) cannot hold exactly"
    }
}

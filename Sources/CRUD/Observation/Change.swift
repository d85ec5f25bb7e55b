/// What happened to a row: Sqlable's change kinds.
public enum CRUDChangeKind: Sendable, Hashable {
    /// A row was inserted.
    case insert
    /// A row was updated.
    case update
    /// A row was deleted.
    case delete
}

/// One committed row change, as observers receive it.
public struct CRUDChange: Sendable, Hashable {
    /// Inserted, updated or deleted.
    public let kind: CRUDChangeKind
    /// The table's name, as `crudSchema.name` has it.
    public let table: String
    /// The row's integer id: on SQLite its rowid (which an integer primary key is), on PostgreSQL its
    /// `id` column.
    public let id: Int

    /// A change of `kind` to row `id` of `table`.
    public init(kind: CRUDChangeKind, table: String, id: Int) {
        self.kind = kind
        self.table = table
        self.id = id
    }
}

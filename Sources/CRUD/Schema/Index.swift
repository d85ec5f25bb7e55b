/// An index of `Model`, declared next to the model and made by `create`, as its constraints are:
///
///     extension Todo {
///         static let crudIndexes: [CRUDIndex<Todo>] = [.index(\.title), .unique(\.userId, \.position)]
///     }
///
/// `crud-migrations` reads the list from the source, so write it as such a literal. An index is
/// named `index_<table>_<columns>` unless given a name.
public struct CRUDIndex<Model: CRUDModel>: Sendable {
    /// The indexed columns; key paths are immutable once formed, so sharing them is safe.
    nonisolated(unsafe) let columns: [PartialKeyPath<Model>]
    let isUnique: Bool
    let name: String?

    /// An index on these columns, in this order.
    public static func index(_ first: PartialKeyPath<Model>, _ rest: PartialKeyPath<Model>..., name: String? = nil) -> CRUDIndex {
        CRUDIndex(columns: [first] + rest, isUnique: false, name: name)
    }

    /// An index on these columns that no two rows share the values of.
    public static func unique(_ first: PartialKeyPath<Model>, _ rest: PartialKeyPath<Model>..., name: String? = nil) -> CRUDIndex {
        CRUDIndex(columns: [first] + rest, isUnique: true, name: name)
    }

    /// The index with its key paths resolved to column names, and its default name.
    /// - Throws: `CRUDSQLGenError` when a key path names no column.
    func frozen() throws -> CRUDSchemaIndex {
        let schema = Model.crudSchema
        let names = try columns.map { keyPath -> String in
            guard let index = Model.crudColumnIndex(of: keyPath) else {
                throw CRUDSQLGenError("create: the index on \(keyPath) of \(Model.self) names no column; indexes name stored columns")
            }
            return schema.columns[index].name
        }
        return CRUDSchemaIndex(name ?? "index_\(schema.name)_\(names.joined(separator: "_"))", columns: names, unique: isUnique)
    }
}

extension CRUDTableSchema {
    /// The statement that makes `index` on this table: a model's declared index, or a frozen one.
    /// - Throws: `CRUDSQLGenError` when the index names a column the table lacks.
    func createIndex(_ index: CRUDSchemaIndex) throws -> CRUDStatementPlan {
        let indexed = try index.columns.map { column in
            guard let found = columns.first(where: { $0.name == column }) else {
                throw CRUDSQLGenError("the index \"\(index.name)\" names the column \"\(column)\", which the table \"\(name)\" lacks")
            }
            return found
        }
        return .createIndex(index.name, table: name, columns: indexed, unique: index.isUnique)
    }
}

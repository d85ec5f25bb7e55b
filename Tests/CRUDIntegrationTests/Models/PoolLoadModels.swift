import CRUD

/// A row written by the storms of the pool tests: a transaction writes two of one batch.
struct StormRow: CRUDModel {
    let id: Int
    var batch: Int
}

/// A table whose generated index names pass PostgreSQL's 63 bytes and MySQL's 64, and would be cut
/// to the same name there.
struct LongNamedRecord: CRUDModel, TableNameProvider {
    static let tableName = "records_of_a_table_whose_name_runs_long_on_purpose_for_indexes"
    let id: Int
    var alpha: Int
    var beta: Int
}

/// A value as large as a test needs.
struct Payload: CRUDModel {
    let id: Int
    var bytes: [UInt8]
}

/// One number a raw query returns.
struct SingleNumber: CRUDModel {
    let n: Int
}

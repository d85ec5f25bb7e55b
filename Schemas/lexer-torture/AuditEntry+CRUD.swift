import CRUD

extension AuditEntry: CRUDModel {}

extension AuditEntry: TableNameProvider {
    static let tableName = "audit log"
}

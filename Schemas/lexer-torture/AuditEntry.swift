import Foundation

/// Declared without CRUDModel: the conformance is added in another file.
struct AuditEntry: Equatable {
    let id: UUID
    var action: String
    var at: Date
}

/// `Insert.lastInsertId()`: the id the database made for an insert's last row, read on the insert's
/// own connection, and only as long as that connection ran nothing else.
extension CRUDExecutor {
    /// A reader of the last id `session`'s database made, as long as the session runs nothing else:
    /// afterwards the id may be another statement's, and the reader throws. The read is itself a
    /// statement on some databases, so a successful read moves the mark past it.
    @usableFromInline
    func lastInsertId(after session: CRUDSession<Connection>) -> () throws -> Int? {
        let mark = CRUDStatementMark(session.statementsRun)
        return { try self.reporting {
            let id = try self.withSessionItself(session) { () throws -> Int?? in
                guard session.statementsRun == mark.value else { return nil }
                let id = try session.connection.lastInsertId(using: session.catalog)
                mark.value = session.statementsRun
                return .some(id)
            }
            guard let id = id ?? nil else {
                throw CRUDSQLExeError(
                    "lastInsertId(): the connection that ran the insert has run other statements since, so its last id may be "
                        + "another's; call lastInsertId() right after the insert, or use returning(…) to get the row's values")
            }
            return id
        } }
    }
}

/// How many statements a session had run when a reader of its last id last looked.
@usableFromInline
final class CRUDStatementMark: @unchecked Sendable {
    // Read and written only inside `withSessionItself`, which holds the session alone: under its
    // gate, or taken from the pool.
    @usableFromInline var value: Int
    @usableFromInline init(_ value: Int) { self.value = value }
}

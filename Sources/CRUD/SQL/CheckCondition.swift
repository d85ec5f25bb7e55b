/// A typed check's condition as SQL: written once in standard SQL, with its values in the text
/// (names in double quotes, strings in single quotes), which is what a migration step freezes and
/// `crud-migrations` writes the same from the source; then quoted for each database as it is created.
extension SQLBuilder {
    /// `node`, a condition on the columns of `model`, in standard SQL with its values written in.
    /// - Throws: `CRUDSQLGenError` for a column of another model, a SQL function, a `LIKE`, or a
    ///   value other than a number, text, a truth value or `nil`, none of which a check writes the
    ///   same on every database.
    static func standardCheck(_ node: CRUDBooleanExpression.Node, of model: any CRUDModel.Type) throws -> String {
        func column(_ reference: CRUDColumnReference) throws -> String {
            guard reference.model == model, let index = reference.index else {
                throw CRUDSQLGenError("a check of \(model) names \(reference.written), which is no column of \(model)")
            }
            guard reference.function == nil else {
                throw CRUDSQLGenError("a check of \(model) applies a function to \(reference.written): write that check as SQL text")
            }
            return CRUDDefaultQuoting.quote(model.crudSchema.columns[index].name)
        }
        func literal(_ value: CRUDDatabaseValue) throws -> String {
            switch value {
            case let .integer(number): return String(number)
            case let .real(number): return String(number)
            case let .text(text): return "'" + text.replacing("'", with: "''") + "'"
            case let .bool(truth): return truth ? "TRUE" : "FALSE"
            case .null: return "NULL"
            case .blob, .date, .uuid:
                throw CRUDSQLGenError("a check of \(model) compares with \(value), which each database stores its own way: "
                    + "write that check as SQL text")
            }
        }
        switch node {
        case let .compare(reference, operation, value):
            let target = try column(reference)
            guard value != .null else {
                switch operation {
                case .equal: return target + " IS NULL"
                case .notEqual: return target + " IS NOT NULL"
                default: throw CRUDSQLGenError("a check of \(model) compares \(reference.written) \(operation.rawValue) nil, which is never true")
                }
            }
            return "\(target) \(operation.rawValue) \(try literal(value))"
        case let .contained(reference, values, negated):
            guard !values.isEmpty, !values.contains(.null) else {
                throw CRUDSQLGenError("a check of \(model) tests \(reference.written) against an empty list or nil: write == nil or != nil")
            }
            return "\(try column(reference)) \(negated ? "NOT IN" : "IN") (\(try values.map(literal).joined(separator: ", ")))"
        case let .like(reference, _, _, _):
            throw CRUDSQLGenError("a check of \(model) matches \(reference.written) with LIKE, which each database escapes its own way: "
                + "write that check as SQL text")
        case let .and(left, right):
            return "(\(try standardCheck(left, of: model)) AND \(try standardCheck(right, of: model)))"
        case let .or(left, right):
            return "(\(try standardCheck(left, of: model)) OR \(try standardCheck(right, of: model)))"
        case let .not(inner):
            return "NOT (\(try standardCheck(inner, of: model)))"
        case let .invalid(error):
            throw error
        }
    }

    /// `condition`, in standard SQL as `standardCheck` writes it, in this database's quoting: each
    /// name in double quotes and each string in single quotes written again by the dialect.
    func requoted(_ condition: String) -> String {
        let bytes = Array(condition.utf8)
        var written = ""
        var index = 0
        var plain = 0
        while index < bytes.count {
            let quote = bytes[index]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                index += 1
                continue
            }
            written += String(decoding: bytes[plain ..< index], as: UTF8.self)
            var inner: [UInt8] = []
            var end = index + 1
            while end < bytes.count {
                if bytes[end] == quote {
                    guard end + 1 < bytes.count, bytes[end + 1] == quote else { break }
                    end += 1
                }
                inner.append(bytes[end])
                end += 1
            }
            let text = String(decoding: inner, as: UTF8.self)
            written += quote == UInt8(ascii: "\"") ? dialect.quote(text) : dialect.stringLiteral(text)
            index = end + 1
            plain = index
        }
        return written + String(decoding: bytes[min(plain, bytes.count)...], as: UTF8.self)
    }
}

/// The names a statement's text mentions: its words and quoted identifiers, lowercased, string
/// literals left out. A superset of the tables it uses (column names and keywords come along), for
/// a question that must never answer "no" wrongly: whether a transaction may have used a table.
enum SQLNames {
    /// Adds the names `sql` mentions to `names`.
    static func collect(from sql: String, into names: inout Set<String>) {
        scan(sql) { name, _ in
            names.insert(name.lowercased())
            return true
        }
    }

    /// The first name `sql` quotes (in double quotes or backticks), as written.
    static func firstQuoted(in sql: String) -> String? {
        var found: String?
        scan(sql) { name, quote in
            if quote != nil { found = name }
            return quote == nil
        }
        return found
    }

    /// The words `sql` writes in double quotes, as written: names in standard SQL, strings on MySQL.
    static func doubleQuoted(in sql: String) -> [String] {
        var found: [String] = []
        scan(sql) { name, quote in
            if quote == UInt8(ascii: "\"") { found.append(name) }
            return true
        }
        return found
    }

    /// Calls `body` with each name in `sql`, in order, and the quote it was in (`"` or a backtick),
    /// until `body` returns false.
    private static func scan(_ sql: String, _ body: (String, _ quote: UInt8?) -> Bool) {
        let bytes = Array(sql.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "`"), UInt8(ascii: "\""), UInt8(ascii: "'"):
                // A quote doubled inside is the quote itself; a backslash escapes the next byte (in
                // MySQL's strings). The name, or the literal, goes on to the closing quote.
                var name: [UInt8] = []
                var end = index + 1
                while end < bytes.count {
                    let inner = bytes[end]
                    if inner == UInt8(ascii: "\\"), byte != UInt8(ascii: "`"), end + 1 < bytes.count {
                        name.append(bytes[end + 1])
                        end += 2
                    } else if inner == byte, end + 1 < bytes.count, bytes[end + 1] == byte {
                        name.append(byte)
                        end += 2
                    } else if inner == byte {
                        break
                    } else {
                        name.append(inner)
                        end += 1
                    }
                }
                if byte != UInt8(ascii: "'"), !name.isEmpty, !body(String(decoding: name, as: UTF8.self), byte) { return }
                index = end + 1
            case _ where isNameByte(byte):
                var end = index + 1
                while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
                if !body(String(decoding: bytes[index ..< end], as: UTF8.self), nil) { return }
                index = end
            default:
                index += 1
            }
        }
    }

    /// Letters, digits, `_`, `$`, and every byte of a non-ASCII character: what an unquoted name
    /// is made of.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...: true
        default: false
        }
    }
}

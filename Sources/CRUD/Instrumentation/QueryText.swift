/// A statement's text as traces show it (OpenTelemetry's `db.query.text` and
/// `db.operation.name`): its literals replaced by `?`, so that a value written into raw SQL never
/// reaches a trace; the library's own statements bind every value, and show as they ran.
enum CRUDQueryText {
    /// `sql` with every string and number literal replaced by `?`. Quoted identifiers, comments
    /// and placeholders (`?`, `?1`, `$1`) are kept.
    static func sanitized(_ sql: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count)
        let bytes = Array(sql.utf8)
        var index = 0
        /// Whether the byte before the current one continues a word, so a digit there is part of
        /// a name (`t1`) or a placeholder (`$1`), not a number.
        var inWord = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"):
                index = skipQuoted(bytes, from: index, quote: byte)
                out.append(UInt8(ascii: "?"))
                inWord = false
                continue
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                let end = skipQuoted(bytes, from: index, quote: byte)
                out += bytes[index ..< end]
                index = end
                inWord = false
                continue
            case UInt8(ascii: "0") ... UInt8(ascii: "9") where !inWord:
                while index < bytes.count, isNumberByte(bytes[index]) { index += 1 }
                out.append(UInt8(ascii: "?"))
                continue
            default:
                // SQLite's numbered placeholder (`?1`) keeps its number, as PostgreSQL's `$1` does.
                inWord = isWordByte(byte) || byte == UInt8(ascii: "?")
            }
            out.append(byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The statement's operation: its first word, upper-cased (`SELECT`, `INSERT`, `BEGIN`).
    static func operation(of sql: String) -> String {
        let word = sql.utf8.drop { !isWordByte($0) }.prefix { isWordByte($0) }
        return String(decoding: word, as: UTF8.self).uppercased()
    }

    /// The index after the quoted run starting at `start`, a doubled quote being part of it.
    private static func skipQuoted(_ bytes: [UInt8], from start: Int, quote: UInt8) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == quote {
                if index + 1 < bytes.count, bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return index
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...: true
        default: false
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
             UInt8(ascii: "x"), UInt8(ascii: "X"), UInt8(ascii: "a") ... UInt8(ascii: "d"), UInt8(ascii: "f"),
             UInt8(ascii: "A") ... UInt8(ascii: "D"), UInt8(ascii: "F"): true
        default: false
        }
    }
}

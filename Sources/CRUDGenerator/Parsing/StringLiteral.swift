/// The value of a single-line string literal token (`"a\tb"`, `#"raw"#`), or `nil` when the literal
/// is interpolated, multi-line or malformed and so has no value known without running code.
func stringLiteralValue(_ text: String) -> String? {
    var scalars = Array(text.unicodeScalars)
    var hashes = 0
    while hashes < scalars.count, scalars[hashes] == "#" { hashes += 1 }
    guard scalars.count >= 2 * hashes + 2,
          scalars[hashes] == "\"", scalars[scalars.count - hashes - 1] == "\"",
          scalars[(scalars.count - hashes)...].allSatisfy({ $0 == "#" })
    else { return nil }
    scalars = Array(scalars[(hashes + 1) ..< (scalars.count - hashes - 1)])
    if scalars.starts(with: ["\"", "\""]) { return nil }

    var value = String.UnicodeScalarView()
    var index = 0
    while index < scalars.count {
        let scalar = scalars[index]
        if scalar == "\n" { return nil }
        let isEscape = scalar == "\\" && index + hashes < scalars.count
            && scalars[(index + 1) ..< (index + 1 + hashes)].allSatisfy { $0 == "#" }
        guard isEscape else {
            value.append(scalar)
            index += 1
            continue
        }
        index += 1 + hashes
        guard index < scalars.count else { return nil }
        switch scalars[index] {
        case "0": value.append("\0")
        case "\\": value.append("\\")
        case "t": value.append("\t")
        case "n": value.append("\n")
        case "r": value.append("\r")
        case "\"": value.append("\"")
        case "'": value.append("'")
        case "u":
            guard index + 1 < scalars.count, scalars[index + 1] == "{",
                  let close = scalars[(index + 2)...].firstIndex(of: "}"),
                  let code = UInt32(String(String.UnicodeScalarView(scalars[(index + 2) ..< close])), radix: 16),
                  let decoded = Unicode.Scalar(code)
            else { return nil }
            value.append(decoded)
            index = close
        default:
            return nil
        }
        index += 1
    }
    return String(value)
}

/// `value` as a Swift string literal that compiles back to the same string.
func swiftStringLiteral(_ value: String) -> String {
    var literal = "\""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\\": literal += "\\\\"
        case "\"": literal += "\\\""
        case "\n": literal += "\\n"
        case "\r": literal += "\\r"
        case "\t": literal += "\\t"
        case "\0": literal += "\\0"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            literal += "\\u{\(String(scalar.value, radix: 16))}"
        default: literal.unicodeScalars.append(scalar)
        }
    }
    return literal + "\""
}

/// Accumulates generated source with four-space indentation.
struct CodeWriter {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ content: String = "") {
        if content.isEmpty {
            text += "\n"
        } else {
            text += String(repeating: "    ", count: depth) + content + "\n"
        }
    }

    /// Writes `opening`, the body one level deeper, then `closing`.
    mutating func block(_ opening: String, closing: String = "}", _ body: (inout CodeWriter) -> Void) {
        line(opening)
        depth += 1
        body(&self)
        depth -= 1
        line(closing)
    }

    /// Writes the body one level deeper, with no opening or closing line.
    mutating func indented(_ body: (inout CodeWriter) -> Void) {
        depth += 1
        body(&self)
        depth -= 1
    }

    /// Writes a `switch` whose `case` labels line up with the `switch` keyword, as Swift style has it.
    mutating func switchBlock(_ subject: String, _ body: (inout CodeWriter) -> Void) {
        line("switch \(subject) {")
        body(&self)
        line("}")
    }

    /// Wraps the body in `#if condition … #endif` when there is a condition.
    mutating func conditional(_ condition: String?, _ body: (inout CodeWriter) -> Void) {
        if let condition { line("#if " + condition) }
        body(&self)
        if condition != nil { line("#endif") }
    }
}

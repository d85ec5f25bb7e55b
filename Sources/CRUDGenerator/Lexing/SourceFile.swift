/// A Swift file as bytes, with what diagnostics need to point into it.
public struct SourceFile: Sendable {
    /// The path that diagnostics print.
    public let path: String
    public let bytes: [UInt8]
    /// Byte offset of the first byte of each line.
    private let lineStarts: [Int]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(offset + 1)
        }
        lineStarts = starts
    }

    public init(path: String, text: String) {
        self.init(path: path, bytes: Array(text.utf8))
    }

    /// The 1-based line and column (in bytes, as the Swift compiler counts them) of a byte offset.
    public func location(of offset: Int) -> (line: Int, column: Int) {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return (low + 1, offset - lineStarts[low] + 1)
    }

    /// The source text of a byte range, with invalid UTF-8 repaired.
    public func text(_ range: Range<Int>) -> String {
        let clamped = max(0, min(range.lowerBound, bytes.count)) ..< max(0, min(range.upperBound, bytes.count))
        return String(decoding: bytes[clamped], as: UTF8.self)
    }

    /// The text of the 1-based line `number`, without its line break; empty past the end.
    public func line(_ number: Int) -> String {
        guard number >= 1, number <= lineStarts.count else { return "" }
        let start = lineStarts[number - 1]
        let end = number < lineStarts.count ? lineStarts[number] - 1 : bytes.count
        return text(start ..< max(start, end))
    }

    public func text(of token: Token) -> String {
        text(token.start ..< token.end)
    }
}

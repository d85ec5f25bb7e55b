import Foundation
import Testing

/// One Swift code block of the README or of a DocC article, as the page has it.
struct DocumentationExample: Sendable, CustomTestStringConvertible {
    /// The page, relative to the package's root.
    let page: String
    /// Its place among the page's Swift blocks, from 1.
    let number: Int
    /// The page's line of the block's first line of code.
    let line: Int
    let code: [String]

    /// "README.md#3": how the table of what examples assume names this one.
    var key: String { "\(URL(fileURLWithPath: page).lastPathComponent)#\(number)" }
    var testDescription: String { key }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The README's and every DocC catalogue's pages, in a stable order.
    static func pages() throws -> [String] {
        let sources = root.appending(path: "Sources")
        var pages = ["README.md"]
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalogue = "Sources/\(target)/Documentation.docc"
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: root.appending(path: catalogue).path) else { continue }
            pages += files.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalogue)/\($0)" }
        }
        return pages
    }

    /// Every ```swift block of `page`.
    static func examples(of page: String) throws -> [DocumentationExample] {
        let text = try String(contentsOf: root.appending(path: page), encoding: .utf8)
        var examples: [DocumentationExample] = []
        var code: [String]?
        var start = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let finished = code {
                    examples.append(DocumentationExample(page: page, number: examples.count + 1, line: start, code: finished))
                    code = nil
                } else if line.hasPrefix("```swift") {
                    code = []
                    start = index + 2
                }
                continue
            }
            code?.append(String(line))
        }
        return examples
    }

    /// Every Swift example of every page; empty when the pages cannot be read, which a test reports.
    static let all: [DocumentationExample] = (try? pages().flatMap(examples(of:))) ?? []

    /// `line` with the pages' placeholder `…` left out where it stands for code, not inside a string
    /// or a comment: `{ … }` becomes an empty body, `[ … ]` an empty array, `…; return 42` the return.
    static func withoutPlaceholders(_ line: String) -> String {
        var result = ""
        var inString = false
        var characters = line[...]
        while let character = characters.first {
            if !inString, characters.hasPrefix("//") { return result + characters }
            characters = characters.dropFirst()
            if character == "\\", inString, let escaped = characters.first {
                result.append(character)
                result.append(escaped)
                characters = characters.dropFirst()
                continue
            }
            if character == "\"" { inString.toggle() }
            if !inString, character == "…" {
                if characters.hasPrefix(";") { characters = characters.dropFirst() }
                continue
            }
            result.append(character)
        }
        return result
    }
}

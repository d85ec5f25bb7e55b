import Foundation
import Testing

@Suite("crud-demo")
struct DemoTests {
    @Test("the demo runs on SQLite and prints its walk-through")
    func demo() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let demo = [directory, directory.deletingLastPathComponent()].map { $0.appending(path: "crud-demo") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        let executable = try #require(demo, "crud-demo is not built next to the tests; `swift build` builds it")
        let process = Process()
        process.executableURL = executable
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("Beru Lars: 555-555-1212 (planet 12)\nOwen Lars: 555-555-1212 (planet 12)"))
        #expect(output.contains("Beru: 165.0 cm, Luke: 172.0 cm, Owen: 178.0 cm"))
        #expect(output.contains("numbers left after deleting planet 15's: 2"))
    }
}

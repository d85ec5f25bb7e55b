import Foundation
import Testing

/// A program the tests run: one of this package's executables, built next to the test bundle
/// (`swift build` and `swift test` build every product), or another at a known path.
struct BuiltProgram {
    let url: URL

    init(_ url: URL) {
        self.url = url
    }

    init(_ name: String) throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let found = [directory, directory.deletingLastPathComponent()].map { $0.appending(path: name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        url = try #require(found, "\(name) is not built next to the tests; `swift build` builds it")
    }

    /// Runs the program to its end and returns its status and standard output.
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let exited = try process.runWatchingExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        exited.wait()
        return (process.terminationStatus, output)
    }
}

extension BuiltProgram {
    /// Runs `crud-test-probe threads` on a new empty database of `backend`, with `options`
    /// (`load=…`, `mutexes=spinning`), on a thread of its own: a process of its own counts its
    /// threads while its tasks run, where the suites beside this one start and end threads all the time.
    static func runThreadsProbe(_ backend: Backend, _ options: [String] = []) async throws -> (status: Int32, output: String) {
        let (_, arguments) = try backend.openForProbe()
        let probe = try BuiltProgram("crud-test-probe")
        return try await onThread { try probe.run(["threads"] + arguments + options) }
    }
}

extension Process {
    /// Starts the process; the semaphore returned is signalled when it has ended. Tests wait on that
    /// rather than on `waitUntilExit()`, which polls a run loop and, off the main thread and under
    /// load, can miss the exit and wait forever (swift-corelibs-foundation); the termination handler
    /// is called by Foundation's own watch of the child.
    func runWatchingExit() throws -> DispatchSemaphore {
        let exited = DispatchSemaphore(value: 0)
        terminationHandler = { _ in exited.signal() }
        try run()
        return exited
    }
}

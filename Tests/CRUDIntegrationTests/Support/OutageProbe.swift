import Foundation
import Testing

/// `crud-test-probe outage`, in a process of its own, which counts its threads every 2 ms and times
/// its writes: tasks writing through a pool whose server stops (`stop`, once the probe is ready),
/// and whose next host never answers, so that each reconnect waits out the connect timeout (2 s).
struct OutageProbe {
    let output: String
    /// The threads before the outage and at most during it.
    let threads: [Int]
    /// How each write during the outage ended: "lost" at once, "timed-out" after more than a
    /// second, "written", or an unexpected error.
    let outcomes: [Substring]
    let seconds: Double?

    /// Runs the probe on `backend`'s server at `port`, then `silent`, with `password` (and the
    /// MySQL `database`): one write, then `writers` tasks writing `attempts` times each.
    static func run(_ backend: String, port: Int, silent: Int, password: String, writers: Int, attempts: Int, database: String? = nil,
                    stop: @escaping @Sendable () throws -> Void) async throws -> OutageProbe {
        let arguments = [backend, String(port), String(silent), password, String(writers), String(attempts)] + (database.map { [$0] } ?? [])
        let output = try await offCooperativePool {
            let probe = Process()
            probe.executableURL = try BuiltProgram("crud-test-probe").url
            probe.arguments = ["outage"] + arguments
            let (input, output) = (Pipe(), Pipe())
            probe.standardInput = input
            probe.standardOutput = output
            let exited = try probe.runWatchingExit()
            defer { if probe.isRunning { kill(probe.processIdentifier, SIGKILL) } }
            var printed = Data()
            while printed.range(of: Data("ready\n".utf8)) == nil {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                printed.append(chunk)
            }
            try stop()
            try input.fileHandleForWriting.write(contentsOf: Data("stopped\n".utf8))
            printed.append(output.fileHandleForReading.readDataToEndOfFile())
            exited.wait()
            #expect(probe.terminationStatus == 0)
            return String(decoding: printed, as: UTF8.self)
        }
        let lines = output.split(separator: "\n")
        func line(_ prefix: String) -> Substring? { lines.first { $0.hasPrefix(prefix) }?.dropFirst(prefix.count) }
        return OutageProbe(output: output, threads: line("threads: ")?.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) } ?? [],
                           outcomes: line("outcomes: ")?.split(separator: " ") ?? [],
                           seconds: line("took: ").flatMap { Double($0.prefix { $0 != " " }) })
    }

    /// Every one of the `writes` failed as `.connectionLost`, some after waiting for the silent
    /// host; the reconnects waited together, in all less than `timeouts` connect timeouts and a
    /// half, where blocking, Swift's pool ran two at a time (without adding a thread either); at
    /// most one thread was added.
    func check(writes: Int, timeouts: Int) {
        #expect(threads.count == 2 && threads[1] - threads[0] <= 1, "\(output)")
        #expect(outcomes.count == writes && outcomes.allSatisfy { $0 == "lost" || $0 == "timed-out" }, "\(output)")
        #expect(outcomes.contains("timed-out"), "some reconnect reached the host that never answers: \(output)")
        #expect(seconds.map { $0 < Double(timeouts) * 2 + 1.5 } == true, "\(output)")
    }
}

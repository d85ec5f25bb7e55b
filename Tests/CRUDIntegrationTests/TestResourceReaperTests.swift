import Foundation
import Testing

@Suite("test resource clean-up")
struct TestResourceReaperTests {
    @Test("a resource is cleaned up when its owner is killed, and at once when released")
    func watchdog() async throws {
        try await offCooperativePool {
            let marker = Backend.temporaryFile("reaped")
            let owner = try Spawn.start(["/bin/sleep", "60"])
            _ = TestResourceReaper.shared.register(cleanUp: "touch \(shellQuoted(marker))", owner: owner)
            #expect(!FileManager.default.fileExists(atPath: marker))
            kill(owner, SIGKILL)
            Spawn.waitForExit(owner)
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { usleep(50_000) }
            #expect(FileManager.default.fileExists(atPath: marker), "the watchdog ran the clean-up after kill -9")

            let released = Backend.temporaryFile("released")
            let key = TestResourceReaper.shared.register(cleanUp: "touch \(shellQuoted(released))")
            TestResourceReaper.shared.release(key)
            #expect(FileManager.default.fileExists(atPath: released))
        }
    }
}

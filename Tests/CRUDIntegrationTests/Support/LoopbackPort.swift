import Foundation
import Synchronization

/// Ports of 127.0.0.1 for the servers the tests start.
enum LoopbackPort {
    /// Every port `free()` returned: servers started side by side by parallel tests each find their
    /// port free before any of them binds it, so a second one could otherwise be handed the same.
    private static let handedOut = Mutex<Set<Int>>([])

    /// A port no process listens on, below the kernel's ephemeral range (32768 and up on Linux), so
    /// that no client socket of the tests can take it while the server restarts, and never returned
    /// before in this process.
    static func free() throws -> Int {
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 100 {
            let port = Int.random(in: 20_000 ..< 32_000, using: &generator)
            if canBind(port), handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw SpawnFailure(description: "cannot find a free port between 20000 and 32000")
    }

    /// A socket connected to `port` of 127.0.0.1, or `nil` when nothing accepts there.
    static func connect(_ port: Int) -> Int32? {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(socket)
            return nil
        }
        return socket
    }

    /// A socket listening on a free port of 127.0.0.1 that never accepts: a client's connect
    /// completes in the kernel's backlog, and its first read waits for ever, as on a server that
    /// hangs. The caller closes it.
    static func listeningWithoutAnswer() throws -> (socket: Int32, port: Int) {
        for _ in 0 ..< 10 {
            let port = try free()
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { break }
            // Not handed to the processes the tests start meanwhile, which would keep it listening.
            _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound, listen(socket, 16) == 0 { return (socket, port) }
            close(socket)
        }
        throw SpawnFailure(description: "cannot listen on a free port of 127.0.0.1")
    }

    private static func canBind(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

import CLibPQ
import Foundation

/// The libpq keywords of the connections that read from standbys, each new one with its hosts in
/// another order: libpq's `prefer-standby` takes the first standby in the list, so without this
/// every read went to the first standby named. libpq 16's `load_balance_hosts` does this in libpq;
/// Debian's libpq 15 has none.
///
/// `@unchecked Sendable`: `next` is guarded by `lock`.
final class PostgresHostRotation: @unchecked Sendable {
    private let parameters: [String: String]
    /// The hosts and their ports (empty strings for the default), as the parameters or the URL in
    /// `dbname` name them; fewer than two: nothing to rotate.
    private let hosts: [(host: String, port: String)]
    private let lock = NSLock()
    private var next = 0

    init(_ parameters: [String: String], expandDatabase: Bool) {
        self.parameters = parameters
        var host = parameters["host"]
        var port = parameters["port"]
        if expandDatabase, host == nil, let url = parameters["dbname"], let parsed = PQconninfoParse(url, nil) {
            defer { PQconninfoFree(parsed) }
            var option = parsed
            while let keyword = option.pointee.keyword {
                let value = option.pointee.val.map { String(cString: $0) }
                switch String(cString: keyword) {
                case "host": host = value
                case "port": port = port ?? value
                default: break
                }
                option += 1
            }
        }
        let names = host?.split(separator: ",", omittingEmptySubsequences: false).map(String.init) ?? []
        var ports = port?.split(separator: ",", omittingEmptySubsequences: false).map(String.init) ?? []
        // libpq: one port for every host, or one each.
        if ports.count == 1 { ports = Array(repeating: ports[0], count: names.count) }
        hosts = ports.count == names.count || ports.isEmpty ? names.enumerated().map { ($0.element, ports.isEmpty ? "" : ports[$0.offset]) } : []
    }

    /// The keywords of the next connection: the hosts from the next one on, the others after.
    func nextParameters() -> [String: String] {
        guard hosts.count > 1 else { return parameters }
        let first = lock.withLock {
            defer { next = (next + 1) % hosts.count }
            return next
        }
        let order = hosts[first...] + hosts[..<first]
        var rotated = parameters
        rotated["host"] = order.map(\.host).joined(separator: ",")
        if order.contains(where: { !$0.port.isEmpty }) { rotated["port"] = order.map(\.port).joined(separator: ",") }
        return rotated
    }
}

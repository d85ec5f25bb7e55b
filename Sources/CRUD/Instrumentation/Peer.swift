/// For drivers: which database and server an executor talks to, as metrics and traces name them
/// (OpenTelemetry's `db.namespace`, `server.address` and `server.port`).
@_spi(CRUDDriver)
public struct CRUDPeer: Sendable, Equatable {
    /// The database: its name on a server, its file's path for SQLite.
    public let namespace: String?
    /// The server's host name, address or socket directory; `nil` for an embedded database.
    public let address: String?
    /// The server's port.
    public let port: Int?

    /// A database and server as metrics and traces name them; what is `nil` is left out.
    public init(namespace: String? = nil, address: String? = nil, port: Int? = nil) {
        self.namespace = namespace
        self.address = address
        self.port = port
    }
}

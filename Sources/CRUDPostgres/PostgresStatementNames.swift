/// The names of the statements one client prepares: `crud_`, a random token of that client's own,
/// and a count. A pooler in transaction mode (pgbouncer's `pool_mode = transaction`) hands server
/// sessions from client to client; with names every client shares (`crud_1`, …) a client ran
/// another's statement under its own name. With a token per client a name it sends is one it
/// prepared, or the server says it has none (`PostgresConnection.error`).
struct PostgresStatementNames {
    /// What every name starts with: `crud_` and the token, then `_`.
    let prefix: String
    private var count = 0

    init() {
        let token = String(UInt64.random(in: .min ... .max), radix: 16)
        prefix = "crud_" + String(repeating: "0", count: 16 - token.count) + token + "_"
    }

    /// A name not given before.
    mutating func next() -> String {
        count += 1
        return prefix + String(count)
    }

    /// Whether the server's message `message` names one of these statements.
    func named(in message: String) -> Bool {
        message.contains(prefix)
    }
}

import CLibPQ

/// The results of statements sent together in libpq's pipeline mode behind one Sync, taken one by
/// one: keeps the first that failed, else the last, and ends at the Sync's own result.
struct PostgresPipelineAnswers {
    private var answer: OpaquePointer?
    /// `PQgetResult`'s NULLs in a row: one ends each statement's results; a second means nothing
    /// more comes (the connection failed).
    private var nulls = 0

    /// Takes the next result; whether there is more to read.
    mutating func take(_ result: OpaquePointer?) -> Bool {
        guard let result else {
            nulls += 1
            return nulls < 2
        }
        nulls = 0
        if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
            PQclear(result)
            return false
        }
        if let kept = answer, !PostgresConnection.succeeded(kept) {
            PQclear(result)
        } else {
            PQclear(answer)
            answer = result
        }
        return true
    }

    /// The answer, the caller's to free, with the connection back out of pipeline mode.
    mutating func finish(on handle: OpaquePointer) -> OpaquePointer? {
        if PQpipelineStatus(handle) != PQ_PIPELINE_OFF { PQexitPipelineMode(handle) }
        defer { answer = nil }
        return answer
    }
}

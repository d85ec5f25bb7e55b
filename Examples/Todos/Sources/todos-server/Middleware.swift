import CRUD
import Hummingbird

/// Puts the request's logger, with its request id, on every line CRUD writes while serving it.
struct DatabaseLoggerMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await CRUDLogging.withLogger(context.logger) { try await next(request, context) }
    }
}

/// Turns the database errors a client caused into their HTTP status: a duplicate into 409, a
/// missing parent or a value the schema refuses into 422, an overloaded database into 503. The
/// rest stay 500s, which the logs and `db.client.errors` show.
struct DatabaseErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as CRUDSQLExeError {
            switch error.kind {
            case .uniqueViolation: throw HTTPError(.conflict, message: "already exists")
            case .foreignKeyViolation, .notNullViolation, .checkViolation: throw HTTPError(.unprocessableContent, message: "refused by the schema")
            case .busyOrLocked, .timedOut, .connectionLost, .shutDown: throw HTTPError(.serviceUnavailable)
            default: throw error
            }
        }
    }
}

import Foundation
import Logging
#if os(Linux)
import Synchronization
#else
import os
#endif

/// The kind of a log event. Queries go to the query destinations, everything else to the error
/// destinations.
public enum CRUDLogEventType: String, Sendable {
    /// Something worth knowing (`CRUDLogging.log(.info, …)`).
    case info
    /// Something that may be wrong.
    case warning
    /// An error the library threw, or that the app logs.
    case error
    /// A statement the library ran, with its SQL.
    case query
}

/// One logged message.
public struct CRUDLogEvent: Sendable, CustomStringConvertible {
    /// When it was logged.
    public let time: Date
    /// What kind of event it is.
    public let type: CRUDLogEventType
    /// The message (for a query, its SQL).
    public let msg: String
    /// For a query, how long the statement ran: from its start until it finished (a cursor's,
    /// until its rows were read to the end or it was released, the caller's work between rows
    /// included); `nil` for other events.
    public let duration: Duration?

    init(time: Date, type: CRUDLogEventType, msg: String, duration: Duration? = nil) {
        self.time = time
        self.type = type
        self.msg = msg
        self.duration = duration
    }

    public var description: String {
        "[\(time.formatted(.iso8601))] [\(type.rawValue)] \(msg)"
    }
}

/// Where log events go.
public enum CRUDLogDestination: Sendable {
    /// Nowhere: the events are dropped.
    case none
    /// Standard output.
    case console
    /// Appended to the file at this path.
    case file(String)
    /// A function of the app's, called with each event on the thread that logs it.
    case custom(@Sendable (CRUDLogEvent) -> Void)
    /// A swift-log `Logger`: queries at `.debug`, info at `.info`, warnings at `.warning`, errors at `.error`.
    case logger(Logger)
}

/// CRUD's log: errors as they are thrown, and every SQL statement as it is executed.
///
/// Logging is asynchronous: events are written on a background queue in the order they were logged.
/// Call `flush()` to wait until everything logged so far has been written; a normal process exit
/// (returning from `main`, or `exit`) does the same first, so no logged event is lost. Changing
/// destinations is thread-safe.
public enum CRUDLogging {
    private static let state = LogState()

    /// Registers the exit-time flush once, with the first event (a static `let` is initialized
    /// exactly once, thread-safely). `atexit` handlers run on a normal exit before standard output
    /// is flushed and closed, while the queue's thread still runs.
    private static let flushAtExit: Void = {
        atexit { CRUDLogging.flush() }
    }()

    /// Where `.query` events go. By default, swift-log's `Logger(label: "CRUD")` at `.debug`, so
    /// statements reach the console only where the app's logging asks for that level (Perfect-CRUD
    /// logs them to the console: set `[.console]` for that).
    public static var queryLogDestinations: [CRUDLogDestination] {
        get { state.withLock { $0.query } }
        set {
            state.withLock { state in
                state.query = newValue
                queryLogSwitch.set(newValue.contains { takes($0, at: .debug) })
            }
        }
    }

    /// The swift-log level at which the errors the library throws to its callers (and hands to
    /// `didFail`) go to `.logger` destinations and to a task's logger: `.debug` by default, since
    /// the caller decides what an error means (a unique violation a server answers with 409 is no
    /// error of the server's). What the library handles itself (a connection it retried) is logged
    /// at `.warning` whatever this says. The console, file and custom destinations get the errors as
    /// `.error` events, as Perfect-CRUD's do.
    public static var reportedErrorLevel: Logger.Level {
        get { state.withLock { $0.reportedErrorLevel } }
        set { state.withLock { $0.reportedErrorLevel = newValue } }
    }

    /// Statements that run at least this long are logged at `.warning`, with their duration and
    /// SQL, whatever the query log says; `nil` (the default) checks none. A cursor's statement
    /// counts until its rows are read to the end or it is released.
    public static var slowStatementThreshold: Duration? {
        get { queryLogSwitch.threshold }
        set { queryLogSwitch.setThreshold(newValue) }
    }

    /// When a statement starts, in nanoseconds of the monotonic clock, where statements are timed
    /// (for the query log, or for the slow statement threshold); 0 otherwise, which costs a few
    /// atomic reads. A plain integer: `ContinuousClock.Instant` is resilient, and an optional one
    /// goes through value witnesses that cost a hundred instructions a statement.
    @usableFromInline
    static func statementStarts() -> UInt64 {
        queryLogSwitch.timesStatements ? DispatchTime.now().uptimeNanoseconds : 0
    }

    /// Logs the statement `sql` that ran from `start` (which `statementStarts` gave): to the query
    /// log with its duration, and at `.warning` when it ran for the slow statement threshold or
    /// longer.
    @inlinable
    static func statementRan(_ sql: @autoclosure () -> String, since start: UInt64) {
        // Inlined, so that an untimed statement costs a comparison.
        if start != 0 { timedStatementRan(sql(), since: start) }
    }

    /// `statementRan` for a statement that was timed.
    @usableFromInline
    static func timedStatementRan(_ sql: String, since start: UInt64) {
        let duration = Duration.nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- start))
        if isLoggingQueries { emit(.query, level: .debug, duration: duration) { sql } }
        if let threshold = queryLogSwitch.threshold, duration >= threshold {
            emit(.warning, level: .warning) { "a statement ran for \(milliseconds(duration)) ms, the slow statement threshold being \(milliseconds(threshold)) ms: \(sql)" }
        }
    }

    /// A duration in milliseconds, to the microsecond.
    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.3f", duration.seconds * 1e3)
    }

    /// The logger of the default destinations, made by the app's swift-log bootstrap (or swift-log's
    /// own, which writes `.info` and above to standard output) when CRUD first logs.
    static let defaultLogger = Logger(label: "CRUD")

    /// Whether any query destination takes events: read for every statement the library runs.
    private static let queryLogSwitch = QueryLogSwitch(on: takes(.logger(defaultLogger), at: .debug))

    /// Where `.info`, `.warning` and `.error` events go. By default, swift-log's
    /// `Logger(label: "CRUD")` (Perfect-CRUD logs them to the console: set `[.console]` for that).
    public static var errorLogDestinations: [CRUDLogDestination] {
        get { state.withLock { $0.errors } }
        set { state.withLock { $0.errors = newValue } }
    }

    /// Logs a message; returns at once. Inside `withLogger`, it also goes to the task's logger.
    public static func log(_ type: CRUDLogEventType, _ msg: String) {
        emit(type, level: level(of: type)) { msg }
    }

    /// Logs an error the library throws to its caller: an `.error` event, at `reportedErrorLevel`
    /// for swift-log.
    static func logReported(_ msg: String) {
        emit(.error, level: reportedErrorLevel) { msg }
    }

    /// Queues the event for its destinations and the task's logger (at `level` for swift-log),
    /// making the message only when one of them takes it.
    private static func emit(_ type: CRUDLogEventType, level: Logger.Level, duration: Duration? = nil, _ msg: () -> String) {
        let destinations = type == .query ? queryLogDestinations : errorLogDestinations
        // Read only while some task has a logger: a task-local read costs a hundred instructions.
        let taskLogger = queryLogSwitch.hasTaskLoggers ? CRUDBindings.current.taskLogger.flatMap { $0.logLevel <= level ? $0 : nil } : nil
        guard taskLogger != nil || destinations.contains(where: { takes($0, at: level) }) else { return }
        let event = CRUDLogEvent(time: Date(), type: type, msg: msg(), duration: duration)
        _ = flushAtExit
        state.queue.async { write(event, level: level, to: destinations, taskLogger: taskLogger) }
    }

    /// Whether a destination writes an event of `level`: a swift-log logger only at its level.
    private static func takes(_ destination: CRUDLogDestination, at level: Logger.Level) -> Bool {
        switch destination {
        case .none: false
        case let .logger(logger): logger.logLevel <= level
        case .console, .file, .custom: true
        }
    }

    /// What swift-log gets besides the message: the event's kind, and a statement's duration.
    private static func metadata(of event: CRUDLogEvent) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["crud.event": "\(event.type.rawValue)"]
        if let duration = event.duration { metadata["crud.duration_ms"] = "\(milliseconds(duration))" }
        return metadata
    }

    /// The swift-log level of an event.
    private static func level(of type: CRUDLogEventType) -> Logger.Level {
        switch type {
        case .query: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }

    /// Runs `body` with `logger` as the current task's logger: every line the library writes while
    /// serving it (its statements at `debug`, its warnings, the errors it reports), on this thread
    /// and on the library's own threads that run the task's calls, goes to `logger` too, with its
    /// metadata (a request's id, say), in place of the `.logger` destinations, which would repeat
    /// it; the console, file and custom destinations get the lines as before. The statements go to
    /// it even with the query log off, at `debug`: a logger above that level gets none, and their
    /// text is not even made for it.
    ///
    ///     try await CRUDLogging.withLogger(context.logger) { try await todos.select() }
    ///
    /// - Throws: what `body` throws.
    public static func withLogger<T>(_ logger: Logger, _ body: () throws -> T) rethrows -> T {
        try queryLogSwitch.taskLoggers.counting {
            try CRUDBindings.$current.withValue(CRUDBindings.current.adding(.logger(logger))) { try body() }
        }
    }

    /// The same for an async `body`.
    /// - Throws: what `body` throws.
    public static func withLogger<T>(_ logger: Logger, isolation: isolated (any Actor)? = #isolation,
                                     _ body: () async throws -> T) async rethrows -> T {
        try await queryLogSwitch.taskLoggers.counting {
            try await CRUDBindings.$current.withValue(CRUDBindings.current.adding(.logger(logger)), operation: body)
        }
    }

    /// Waits until every event logged before this call has been written, and standard output with
    /// them.
    public static func flush() {
        // A destination that exits the process runs on the queue, where waiting for it would never end.
        guard DispatchQueue.getSpecific(key: state.queueKey) == nil else { return }
        state.queue.sync { _ = fflush(nil) }
    }

    /// Whether queries may be logged anywhere (a destination, or a task's logger), so the query
    /// text need not be built otherwise.
    static var isLoggingQueries: Bool {
        queryLogSwitch.isOn
    }

    /// Logs a query with the SQL text produced only when someone listens.
    @usableFromInline
    static func logQuery(_ sql: @autoclosure () -> String) {
        if isLoggingQueries { emit(.query, level: .debug, sql) }
    }

    private static func write(_ event: CRUDLogEvent, level: Logger.Level, to destinations: [CRUDLogDestination], taskLogger: Logger?) {
        if let taskLogger {
            taskLogger.log(level: level, "\(event.msg)", metadata: metadata(of: event))
        }
        for destination in destinations {
            switch destination {
            case .none:
                break
            case .console:
                print(event.description)
            case let .file(path):
                state.append(event.description + "\n", toFile: path)
            case let .custom(handler):
                handler(event)
            case let .logger(logger):
                guard taskLogger == nil else { continue }
                logger.log(level: level, "\(event.msg)", metadata: metadata(of: event))
            }
        }
    }
}

/// The destinations behind a lock, the writing queue, and open log files (touched only on the queue).
private final class LogState: @unchecked Sendable {
    struct Destinations {
        var query: [CRUDLogDestination] = [.logger(CRUDLogging.defaultLogger)]
        var errors: [CRUDLogDestination] = [.logger(CRUDLogging.defaultLogger)]
        var reportedErrorLevel = Logger.Level.debug
    }

    let queue = DispatchQueue(label: "CRUDLogging")
    let queueKey = DispatchSpecificKey<Void>()
    private let lock = NSLock()
    private var destinations = Destinations()
    private var files: [String: FileHandle] = [:]

    init() {
        queue.setSpecific(key: queueKey, value: ())
    }

    func withLock<T>(_ body: (inout Destinations) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&destinations)
    }

    /// Called on `queue` only.
    func append(_ line: String, toFile path: String) {
        if files[path] == nil {
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            guard let handle = FileHandle(forWritingAtPath: path) else {
                print("CRUDLogging: cannot write to log file \(path)")
                return
            }
            handle.seekToEndOfFile()
            files[path] = handle
        }
        files[path]?.write(Data(line.utf8))
    }
}

/// Whether queries may be logged: a query destination takes them, or some task has a logger. Read
/// on every statement, so without a lock where the platform has atomics (Linux's Synchronization;
/// Apple's before macOS 15 have the unfair lock, nearly as cheap). The destinations' part is written
/// only under `LogState`'s lock, with the destinations it summarizes.
private final class QueryLogSwitch: Sendable {
    #if os(Linux)
    private let on: Atomic<Bool>
    /// The slow statement threshold in nanoseconds; negative for none.
    private let thresholdNanoseconds = Atomic<Int64>(-1)

    init(on: Bool) {
        self.on = Atomic(on)
    }

    var isOn: Bool { on.load(ordering: .relaxed) || hasTaskLoggers }

    var hasTaskLoggers: Bool { taskLoggers.any }

    var threshold: Duration? {
        let nanoseconds = thresholdNanoseconds.load(ordering: .relaxed)
        return nanoseconds < 0 ? nil : .nanoseconds(nanoseconds)
    }

    /// Whether statements are timed: for the query log, or for the threshold.
    var timesStatements: Bool { isOn || thresholdNanoseconds.load(ordering: .relaxed) >= 0 }

    func set(_ value: Bool) { on.store(value, ordering: .relaxed) }

    func setThreshold(_ threshold: Duration?) { thresholdNanoseconds.store(threshold?.nanoseconds ?? -1, ordering: .relaxed) }
    #else
    private let state: OSAllocatedUnfairLock<(on: Bool, threshold: Duration?)>

    init(on: Bool) {
        state = OSAllocatedUnfairLock(initialState: (on: on, threshold: nil))
    }

    var isOn: Bool { state.withLock { $0.on } || hasTaskLoggers }

    var hasTaskLoggers: Bool { taskLoggers.any }

    var threshold: Duration? { state.withLock { $0.threshold } }

    var timesStatements: Bool { isOn || state.withLock { $0.threshold != nil } }

    func set(_ value: Bool) { state.withLock { $0.on = value } }

    func setThreshold(_ threshold: Duration?) { state.withLock { $0.threshold = threshold.map { .nanoseconds($0.nanoseconds) } } }
    #endif

    /// The tasks' loggers (`withLogger`) open now.
    let taskLoggers = CRUDScopeCount()
}

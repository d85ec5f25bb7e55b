import CRUD
import CRUDTesting

/// A recording database with logging off, so that the tests' output stays readable.
func recordingDatabase() -> Database<RecordingConfiguration> {
    quietLogs
    return Database(configuration: RecordingConfiguration())
}

/// Logging off, once: logging is global, and the integration tests' logging suite, in the same
/// process, sets its own destinations meanwhile.
private let quietLogs: Void = {
    CRUDLogging.queryLogDestinations = []
    CRUDLogging.errorLogDestinations = []
}()

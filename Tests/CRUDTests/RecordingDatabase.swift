import CRUD
import CRUDTesting

/// A recording database with logging off, so that the tests' output stays readable.
func recordingDatabase() -> Database<RecordingConfiguration> {
    CRUDLogging.queryLogDestinations = []
    CRUDLogging.errorLogDestinations = []
    return Database(configuration: RecordingConfiguration())
}

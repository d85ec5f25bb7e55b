/// The row changes one connection made in its open transaction, kept until the transaction ends:
/// a commit hands them to the observers, a rollback (of the transaction, a savepoint or a failed
/// statement) drops its share of them.
///
/// Used by one thread at a time, the one that holds the connection's session (as the connection is);
/// a driver whose database reports changes itself (SQLite's update hook) records into it from that
/// thread, in the middle of a step.
public final class CRUDChangeRecorder {
    /// Whether changes are recorded at all: set from the database's observers before each statement,
    /// so nothing is recorded (and nothing is paid) while nobody observes.
    public internal(set) var isRecording = false {
        didSet {
            if isRecording != oldValue { recordingChanged?(isRecording) }
        }
    }
    /// Called when `isRecording` changes, before the next statement is prepared: a driver turns its
    /// database's change reports on and off with it.
    public var recordingChanged: ((Bool) -> Void)?
    /// Changes since the transaction began, in the order they happened. A change without an id
    /// (PostgreSQL, a table whose id is not an integer) still tells query observations that its
    /// table changed.
    private(set) var pending: [(kind: CRUDChangeKind, table: String, id: Int?)] = []
    /// Where each open savepoint began in `pending`.
    private var savepoints: [Int] = []
    /// The last table name a driver passed as C text: a statement's rows all name the same table, so
    /// one string serves them.
    private var lastName = ""

    /// A recorder with nothing recorded.
    public init() {}

    /// Records a change the database reported for a table it named in C text.
    public func record(_ kind: CRUDChangeKind, table: UnsafePointer<CChar>, id: Int64) {
        guard isRecording else { return }
        if !Self.spells(lastName, table) { lastName = String(cString: table) }
        pending.append((kind, lastName, Int(truncatingIfNeeded: id)))
    }

    /// Whether the NUL-terminated `text` is `name`'s UTF-8.
    private static func spells(_ name: String, _ text: UnsafePointer<CChar>) -> Bool {
        var index = 0
        for byte in name.utf8 {
            guard UInt8(bitPattern: text[index]) == byte else { return false }
            index += 1
        }
        return text[index] == 0
    }

    @usableFromInline
    func record(_ kind: CRUDChangeKind, table: String, id: Int?) {
        guard isRecording else { return }
        pending.append((kind, table, id))
    }

    var hasPending: Bool { !pending.isEmpty }

    /// Where the next statement's changes begin, for `dropStatement(from:)`.
    var statementStart: Int { pending.count }

    /// Drops the changes of a statement that failed: the database undid them.
    func dropStatement(from start: Int) {
        if pending.count > start { pending.removeSubrange(start...) }
    }

    func beginSavepoint() { savepoints.append(pending.count) }

    func releaseSavepoint() { savepoints.removeLast() }

    func rollBackSavepoint() {
        dropStatement(from: savepoints.removeLast())
    }

    /// Takes every change recorded, for the commit that makes them final.
    func takeCommitted() -> [(kind: CRUDChangeKind, table: String, id: Int?)] {
        savepoints.removeAll()
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    /// Drops every change: the transaction rolled back.
    func dropAll() {
        savepoints.removeAll()
        pending.removeAll(keepingCapacity: true)
    }
}

/// How a chain write lets the observers know of its rows where the connection does not record
/// changes itself (`CRUDSession.changeCapture(for:writing:)`).
@usableFromInline
struct CRUDChangeCapture {
    /// Whether the write records its changes: someone observes.
    @usableFromInline let observed: Bool
    /// The integer id column the write returns, or `nil` when it records only that its table changed.
    @usableFromInline let idColumn: Int?
    /// The integer id column whose values the write selects, locked, before it runs, where it cannot
    /// return them (MySQL's UPDATE): `CRUDSession.write(recording:…)`.
    let selectedIDColumn: Int?

    @usableFromInline
    init(observed: Bool, idColumn: Int?, selectedIDColumn: Int? = nil) {
        self.observed = observed
        self.idColumn = idColumn
        self.selectedIDColumn = selectedIDColumn
    }

    /// What a write whose ids were selected first records as it runs: nothing more.
    @usableFromInline static var unobserved: CRUDChangeCapture { CRUDChangeCapture(observed: false, idColumn: nil) }

    /// What the write adds to its RETURNING clause: the id column, if any.
    @usableFromInline var returning: [Int] { idColumn.map { [$0] } ?? [] }
}

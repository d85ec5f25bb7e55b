@testable import CRUD
import Testing

/// The session gate's decisions, event by event, with no thread and no task: waiting tasks are
/// numbers, and a woken thread is the `threadWoke` event.
@Suite("session gate state machine")
struct SessionGateMachineTests {
    /// A machine behind a reference, so that its events read as plain calls, inside `#expect` too.
    final class Gate {
        var machine = CRUDSessionGateMachine<Int>()
        var isFree: Bool { machine.isFree }
        var threadsWaiting: Int { machine.threadsWaiting }
        var tasksWaiting: Int { machine.tasksWaiting }
        func threadArrives() -> Bool { machine.threadArrives() }
        func threadWoke() -> Bool { machine.threadWoke() }
        func threadTries() -> Bool { machine.threadTries() }
        func threadReleases() -> CRUDSessionGateMachine<Int>.Release { machine.threadReleases() }
        func taskArrives(_ waiting: Int?) -> Bool { machine.taskArrives(waiting: waiting) }
        func taskReleases() -> CRUDSessionGateMachine<Int>.Release { machine.taskReleases() }
    }

    static func resumed(_ release: CRUDSessionGateMachine<Int>.Release) -> Int? {
        if case let .resume(task) = release { task } else { nil }
    }

    static func wakes(_ release: CRUDSessionGateMachine<Int>.Release) -> Bool {
        if case .wakeThreads = release { true } else { false }
    }

    @Test("a free gate goes to whoever comes; a task waits behind a thread and is resumed when it gives the gate back")
    func taskAfterThread() {
        let gate = Gate()
        #expect(gate.threadArrives())
        #expect(!gate.taskArrives(nil), "a task asking without waiting does not queue")
        #expect(gate.tasksWaiting == 0)
        #expect(!gate.taskArrives(1))
        #expect(!gate.threadTries(), "held")
        #expect(Self.resumed(gate.threadReleases()) == 1)
        #expect(!gate.isFree)
        guard case .nothing = gate.taskReleases() else { Issue.record("someone was woken"); return }
        #expect(gate.isFree)
        #expect(gate.threadTries())
    }

    @Test("threads and tasks waiting together take turns, tasks in the order they came")
    func alternation() {
        let gate = Gate()
        #expect(gate.taskArrives(nil))
        #expect(!gate.threadArrives())
        #expect(!gate.taskArrives(1))
        #expect(!gate.taskArrives(2))
        #expect(!gate.threadArrives())
        // The gate went to a task last: the threads are woken, and the first to look takes it.
        #expect(Self.wakes(gate.taskReleases()))
        #expect(gate.threadWoke())
        #expect(!gate.threadWoke(), "one holder")
        #expect(gate.threadsWaiting == 1)
        // Now a thread had it: the first task.
        #expect(Self.resumed(gate.threadReleases()) == 1)
        #expect(Self.wakes(gate.taskReleases()))
        #expect(gate.threadWoke())
        #expect(Self.resumed(gate.threadReleases()) == 2)
        guard case .nothing = gate.taskReleases() else { Issue.record("someone was woken"); return }
        #expect(gate.threadsWaiting == 0 && gate.tasksWaiting == 0 && gate.isFree)
    }

    @Test("a thread may not take a free gate ahead of a task whose turn it is; a task may not take it ahead of a woken thread")
    func turns() {
        let gate = Gate()
        #expect(gate.threadArrives())
        #expect(!gate.taskArrives(1))
        // Given back: the task's turn, already handed to it.
        #expect(Self.resumed(gate.threadReleases()) == 1)
        #expect(!gate.threadArrives())
        #expect(Self.wakes(gate.taskReleases()))
        // Free, a thread woken but not yet running: a task arriving now waits behind it.
        #expect(gate.isFree)
        #expect(!gate.taskArrives(2))
        #expect(!gate.threadTries(), "a task waits")
        #expect(gate.threadWoke())
        #expect(Self.resumed(gate.threadReleases()) == 2)
    }

    @Test("giving back a gate nobody holds stops the process")
    func releasedUnheld() async {
        await #expect(processExitsWith: .failure) {
            var machine = CRUDSessionGateMachine<Int>()
            _ = machine.taskReleases()
        }
    }

    @Test("10,000 random events: one holder at a time, every waiter let in, tasks in order, neither kind passed over twice in a row")
    func randomEvents() {
        var numbers = SeededNumbers(state: 56)
        var machine = CRUDSessionGateMachine<Int>()
        enum Holder: Equatable { case thread, task(Int) }
        var holder: Holder?
        var nextTask = 0
        var queuedTasks: [Int] = []
        var threads = 0
        // How many times in a row the gate went to one kind while the other waited.
        var passedOver = 0
        var lastKind: Holder?

        func took(_ taker: Holder, otherKindWaiting: Bool) {
            if holder != nil { Issue.record("\(taker) took the gate while \(holder!) held it") }
            holder = taker
            let kind: Holder = taker == .thread ? .thread : .task(0)
            passedOver = otherKindWaiting && kind == lastKind ? passedOver + 1 : 0
            lastKind = kind
        }
        func released(_ release: CRUDSessionGateMachine<Int>.Release) {
            switch release {
            case let .resume(task):
                if queuedTasks.first != task { Issue.record("task \(task) resumed ahead of \(queuedTasks)") }
                queuedTasks.removeFirst()
                took(.task(task), otherKindWaiting: threads > 0)
            case .wakeThreads:
                if threads == 0 { Issue.record("threads woken with none waiting") }
                // One of the woken threads looks first.
                if machine.threadWoke() {
                    threads -= 1
                    took(.thread, otherKindWaiting: !queuedTasks.isEmpty)
                }
            case .nothing:
                if threads > 0 || !queuedTasks.isEmpty { Issue.record("nobody let in, \(threads) threads and \(queuedTasks.count) tasks waiting") }
            }
        }

        for _ in 0 ..< 10_000 {
            switch Int.random(in: 0 ..< 5, using: &numbers) {
            case 0:
                if machine.threadArrives() { took(.thread, otherKindWaiting: !queuedTasks.isEmpty) } else { threads += 1 }
            case 1:
                nextTask += 1
                if machine.taskArrives(waiting: nextTask) { took(.task(nextTask), otherKindWaiting: threads > 0) } else { queuedTasks.append(nextTask) }
            case 2:
                if threads > 0, machine.threadWoke() {
                    threads -= 1
                    took(.thread, otherKindWaiting: !queuedTasks.isEmpty)
                }
            default:
                switch holder {
                case .thread?:
                    holder = nil
                    released(machine.threadReleases())
                case .task?:
                    holder = nil
                    released(machine.taskReleases())
                case nil:
                    // Free with someone waiting only while woken threads have not looked yet.
                    if !queuedTasks.isEmpty, threads == 0 { Issue.record("tasks wait at a free gate with no thread to take it") }
                }
            }
            if passedOver > 1 {
                Issue.record("one kind took the gate three times in a row while the other waited")
                return
            }
            if machine.threadsWaiting != threads || machine.tasksWaiting != queuedTasks.count {
                Issue.record("the machine counts \(machine.threadsWaiting) threads and \(machine.tasksWaiting) tasks waiting")
                return
            }
        }
        #expect(nextTask > 1_000)
    }
}

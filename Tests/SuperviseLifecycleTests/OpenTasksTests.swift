import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

@Suite(.timeLimit(.minutes(5))) struct OpenTasksTests {
    func task(_ number: Int) -> TaskReference {
        TaskReference(id: TaskID("t\(number)")!, name: nil)
    }

    @Test func keepsBeginOrderThroughRemovalsAndCompaction() {
        var tasks = OpenTasks()
        for number in 0..<1_000 { tasks.append(task(number)) }
        // Remove all but every tenth: far more holes than tasks, so it compacts on the way.
        for number in 0..<1_000 where number % 10 != 0 {
            let removed = tasks.remove(task(number).id)
            #expect(removed)
        }
        #expect(tasks.count == 100)
        #expect(Array(tasks) == stride(from: 0, to: 1_000, by: 10).map(task))
        let removedAgain = tasks.remove(task(1).id)
        #expect(!removedAgain, "a removed task is not open")
        #expect(tasks.contains(task(990).id))
        #expect(!tasks.contains(task(991).id))
        tasks.append(task(1))
        #expect(Array(tasks).last == task(1), "a new task goes after the open ones")
    }

    @Test func aHundredThousandOpenTasksAreGrantedAndEnded() {
        var settings = LifecycleSettings()
        settings.maxOpenTasks = 200_000
        var machine = ChildLifecycle(settings: settings)
        let now = Instant(nanoseconds: 0)
        _ = machine.handle(.launched, at: now)
        for number in 0..<100_000 { _ = machine.handle(.request(.begin(id: task(number).id, name: nil)), at: now) }
        #expect(machine.openTasks.count == 100_000)
        for number in stride(from: 99_999, through: 0, by: -1) { _ = machine.handle(.request(.end(id: task(number).id)), at: now) }
        #expect(machine.openTasks.isEmpty)
    }
}

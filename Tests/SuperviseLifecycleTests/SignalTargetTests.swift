import Testing
@testable import SuperviseLifecycle

/// Who a forwarded signal reaches (docs/cli.md, "Who gets a forwarded signal").
@Suite(.timeLimit(.minutes(5))) struct SignalTargetTests {
    /// The main process by the pid the supervisor spawned; the group it was made the leader of,
    /// by that same id; the tree as the freezer follows it.
    @Test func eachTargetNamesItsRecipients() {
        #expect(SignalTarget.main.recipients(mainPID: 4242) == .process(4242))
        #expect(SignalTarget.group.recipients(mainPID: 4242) == .processGroup(4242))
        #expect(SignalTarget.tree.recipients(mainPID: 4242) == .tree)
    }

    /// Once the main process is reaped its pid may name another process, and the group it led
    /// may be gone: only the tree is still reached.
    @Test func onlyTheTreeOutlivesTheMainProcess() {
        #expect(SignalTarget.main.recipients(mainPID: nil) == nil)
        #expect(SignalTarget.group.recipients(mainPID: nil) == nil)
        #expect(SignalTarget.tree.recipients(mainPID: nil) == .tree)
    }

    /// No pid that `kill(2)` reads as "every process" (-1), "my group" (0) or a group is sent to.
    @Test(arguments: [0, -1, -4242] as [Int32])
    func noPidThatIsNotOneProcess(pid: Int32) {
        #expect(SignalTarget.main.recipients(mainPID: pid) == nil)
        #expect(SignalTarget.group.recipients(mainPID: pid) == nil)
    }
}

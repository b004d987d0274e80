import Glibc
import SuperviseTestSupport
import Testing

/// The tests' own `spawn` (FreezerProcessSupport) hands its child no descriptor of the test
/// process beyond the standard three (`closeInheritedDescriptors`): one another test has not
/// marked close-on-exec yet would keep that test's pipe open.
@Suite(.timeLimit(.minutes(1))) struct TestSpawnTests {
    @Test func aSpawnedChildHoldsOnlyTheStandardDescriptors() throws {
        let stray = open("/dev/null", O_RDONLY)  // not close-on-exec
        defer { close(stray) }
        try #require(stray > 2)
        let pid = try spawn(["/bin/sleep", "30"])
        defer {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
        var descriptors: [Int] = []
        let settled = eventually(timeout: 5) {
            descriptors = openDescriptors(of: pid)
            return descriptors == [0, 1, 2]
        }
        #expect(settled, "the child's descriptors: \(descriptors), the test process's stray one being \(stray)")
    }
}

import Foundation
import Glibc
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem
import SuperviseTestSupport

/// How a supervisor's cgroup is named and recognized, and the lock that says it is in use. No root needed.
@Suite(.timeLimit(.minutes(5))) struct CgroupOwnershipTests {
    @Test func namesCarryThePidAndSixteenHexDigits() {
        #expect(SupervisorCgroupName.make(pid: 42, token: 0xab) == "supervise-42-00000000000000ab")
        #expect(SupervisorCgroupName.make(pid: 1, token: .max) == "supervise-1-ffffffffffffffff")
        let name = SupervisorCgroupName.random(pid: 7)
        #expect(SupervisorCgroupName.matches(name), "\(name)")
        #expect(name.hasPrefix("supervise-7-"))
        #expect(Set((0..<100).map { _ in SupervisorCgroupName.random(pid: 1) }).count == 100)
    }

    @Test(arguments: ["supervise-42-00000000000000ab", "supervise-1-0123456789abcdef"])
    func theCurrentFormIsRecognized(name: String) {
        #expect(SupervisorCgroupName.matches(name))
    }

    @Test(arguments: ["supervise-42", "supervise-1", "supervise-42-abc", "supervise-42-00000000000000AB",
                      "supervise-42-00000000000000abc", "supervise--00000000000000ab", "supervise-x-00000000000000ab",
                      "supervise-42-00000000000000ab-1", "supervise-42-00000000000000ag", "supervise-test-probe-7",
                      "worker.1", "Supervise-42-00000000000000ab"])
    func otherNamesAreNot(name: String) {
        #expect(!SupervisorCgroupName.matches(name))
    }

    /// Older builds sweep `supervise-N` when N reads as an Int32 pid of no live supervisor: never this form.
    @Test func olderSweepsCanNotReadTheCurrentFormAsAPid() {
        let name = SupervisorCgroupName.random(pid: 1)
        #expect(Int32(name.dropFirst(SupervisorCgroupName.prefix.count)) == nil)
    }

    @Test func aLockIsHeldUntilReleasedAndRefusedMeanwhile() throws {
        let temporary = TemporaryDirectory(prefix: "supervise-lock")
        defer { temporary.remove() }
        let directory = temporary.path
        let held = try #require(try CgroupDirectoryLock.acquire(directory).get())
        #expect(held.isOn(directory))
        #expect(try CgroupDirectoryLock.acquire(directory).get() == nil, "a second open took a held lock")
        held.release()
        // A process another test spawns meanwhile shares the open directory until its exec
        // closes it (O_CLOEXEC), and the flock with it: once seen failing on a loaded CI machine.
        var again: CgroupDirectoryLock?
        #expect(eventually(timeout: 10) {
            again = try? CgroupDirectoryLock.acquire(directory).get()
            return again != nil
        }, "the released lock could not be taken")
        again?.release()
    }

    @Test func aLockIsNotOnADirectoryRemovedOrReplacedSince() throws {
        let temporary = TemporaryDirectory(prefix: "supervise-lock")
        defer { temporary.remove() }
        let directory = temporary.path
        let lock = try #require(try CgroupDirectoryLock.acquire(directory).get())
        defer { lock.release() }
        rmdir(directory)
        #expect(!lock.isOn(directory))
        mkdir(directory, 0o755)
        #expect(!lock.isOn(directory))
    }

    @Test func aMissingDirectoryIsAnError() {
        let temporary = TemporaryDirectory(prefix: "supervise-lock")
        defer { temporary.remove() }
        let result = CgroupDirectoryLock.acquire(temporary.file("no-such"))
        guard case .failure(let error) = result else {
            Issue.record("locked a missing directory")
            return
        }
        #expect(error.rawValue == ENOENT)
    }
}

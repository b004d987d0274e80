import Foundation
import Glibc
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem
import SuperviseTestSupport
import _SuperviseCShims


/// Real children, spawned the way the supervisor spawns them.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SpawnerTests {
    // MARK: Starting and exit status

    @Test func spawnsAndReapsTrue() throws {
        let child = try Child.spawn(["/bin/true"])
        #expect(child.pid > 0)
        #expect(child.reap() == .exited(0))
    }

    @Test func passesTheExitCodeThrough() throws {
        let child = try Child.spawn(["sh", "-c", "exit 7"])
        let termination = child.reap()
        #expect(termination == .exited(7))
        #expect(termination.shellStatus == 7)
    }

    @Test func reportsADeathBySignal() throws {
        let child = try Child.spawn(["sh", "-c", "kill -9 $$"])
        let termination = child.reap()
        #expect(termination == .signaled(SIGKILL))
        #expect(termination.shellStatus == 137)
        #expect(termination.summary == "killed by SIGKILL (9)")
    }

    // MARK: Exec failures

    @Test func commandNotFoundIs127AndNamesTheCommand() throws {
        let error = #expect(throws: SupervisorError.self) {
            try Child.spawn(["supervise-no-such-command"])
        }
        #expect(error?.code == .spawn(status: 127))
        #expect(error?.message.hasPrefix(
            "cannot run 'supervise-no-such-command': No such file or directory") == true)
        #expect(error?.message.hasSuffix("(exit 127)") == true)
        #expect(error?.message.contains("\n") == false)
    }

    @Test func anExecRefusedForWantOfResourcesIsTheSupervisorsFailure() {
        // execve's EAGAIN (RLIMIT_NPROC of a --user child), ENOMEM, ENFILE, EMFILE say nothing
        // about the command: not 126, but a failure of the supervisor's own (exit 125).
        let request = SpawnRequest(arguments: ["./worker"], environment: [], eventsFD: 3, requestsFD: 4)
        for errno in [EAGAIN, ENOMEM, ENFILE, EMFILE] {
            let error = SpawnFailure(step: _SUPERVISE_STEP_EXEC, errno: errno, request: request).error
            #expect(error.code == .system, "errno \(errno)")
        }
        #expect(SpawnFailure(step: _SUPERVISE_STEP_EXEC, errno: EACCES, request: request).error.code == .spawn(status: 126))
    }

    @Test func missingPathIs127() throws {
        let error = #expect(throws: SupervisorError.self) {
            try Child.spawn(["/nonexistent/supervise-worker"])
        }
        #expect(error?.code == .spawn(status: 127))
    }

    @Test func looksCommandsUpOnTheChildsPATH() throws {
        let error = #expect(throws: SupervisorError.self) {
            try Child.spawn(["sh", "-c", "exit 0"], environment: ["PATH=/nonexistent"])
        }
        #expect(error?.code == .spawn(status: 127))

        let child = try Child.spawn(["sh", "-c", "exit 3"], environment: ["PATH=/nonexistent:/bin"])
        #expect(child.reap() == .exited(3))
    }

    @Test func nonExecutableFileIs126() throws {
        let directory = TemporaryDirectory(prefix: "supervise-spawner")
        let script = directory.path + "/worker"
        try "#!/bin/sh\nexit 0\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)

        let byPath = #expect(throws: SupervisorError.self) { try Child.spawn([script]) }
        #expect(byPath?.code == .spawn(status: 126))
        #expect(byPath?.message.contains("'\(script)': Permission denied") == true)

        let byLookup = #expect(throws: SupervisorError.self) {
            try Child.spawn(["worker"], environment: ["PATH=/nonexistent:\(directory.path)"])
        }
        #expect(byLookup?.code == .spawn(status: 126))
    }

    @Test func missingWorkingDirectoryIs126AndNamesIt() throws {
        let error = #expect(throws: SupervisorError.self) {
            try Child.spawn(["/bin/true"], workingDirectory: "/nonexistent/dir")
        }
        #expect(error?.code == .spawn(status: 126))
        #expect(error?.message.contains("'/nonexistent/dir': No such file or directory") == true)
    }

    @Test func aFailedCgroupPlacementIsTheSupervisorsError() throws {
        let readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(readOnly) }
        let error = #expect(throws: SupervisorError.self) {
            try Child.spawn(["/bin/true"], cgroupProcsFD: readOnly)
        }
        #expect(error?.code == .system)
        #expect(error?.message.contains("placing it in its cgroup") == true)
    }

    @Test func aFailedCredentialStepIsNamedWithItsErrno() throws {
        // More supplementary groups than the kernel takes (NGROUPS_MAX, 65536): setgroups says EINVAL.
        let identity = ChildIdentity(uid: getuid(), gid: getgid(), groups: Array(repeating: getgid(), count: 70_000))
        let error = #expect(throws: SupervisorError.self) {
            try Child.spawn(["/bin/true"], privileges: ChildPrivileges(identity: identity))
        }
        #expect(error?.code == .system)
        #expect(error?.message == "cannot start '/bin/true': setting its supplementary groups (setgroups) failed: "
            + "Invalid argument", "\(error?.message ?? "")")
    }

    @Test(.skip("capabilities", because: getuid() == 0 ? nil : "dropping the bounding set needs root (CAP_SETPCAP)",
                in: "SpawnerTests"))
    func aConfinedChildKeepsOnlyItsCapabilitiesAndLeadsASession() throws {
        let identity = ChildIdentity(uid: 65534, gid: 65534, groups: [65534, 4_000_000])
        let privileges = ChildPrivileges(identity: identity, capabilities: CapabilitySet(mask: 1 << 10))
        let child = try Child.spawn(["sleep", "30"], privileges: privileges)
        defer { child.kill() }
        let status = try String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)
        for line in ["Uid:\t65534\t65534\t65534\t65534", "Gid:\t65534\t65534\t65534\t65534", "Groups:\t65534 4000000 ",
                     "CapInh:\t0000000000000400", "CapPrm:\t0000000000000400", "CapEff:\t0000000000000400",
                     "CapBnd:\t0000000000000400", "CapAmb:\t0000000000000400", "NoNewPrivs:\t1"] {
            #expect(status.contains(line + "\n"), "\(line) in:\n\(status)")
        }
        #expect(getsid(child.pid) == child.pid)
    }

    @Test func emptyCommandIsRefused() throws {
        let error = #expect(throws: SupervisorError.self) { try Child.spawn([]) }
        #expect(error?.code == .spawn(status: 127))
    }

    // MARK: Helpers of the spawner

    @Test func decodesWaitStatuses() {
        #expect(ChildTermination(waitStatus: 7 << 8) == .exited(7))
        #expect(ChildTermination(waitStatus: SIGTERM) == .signaled(SIGTERM))
        #expect(ChildTermination(waitStatus: SIGSEGV | 0x80) == .signaled(SIGSEGV))
        #expect(ChildTermination.exited(7).summary == "exited with 7")
        #expect(ChildTermination.signaled(SIGTERM).shellStatus == 143)
    }

    @Test func protocolChannelsHaveNonBlockingSupervisorEnds() throws {
        let channels = try ProtocolChannels()
        defer { channels.closeSupervisorEnds() }
        for fd in [channels.eventsRead, channels.requestsWrite, channels.eventsWrite, channels.requestsRead] {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        }
        #expect(fcntl(channels.eventsWrite, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(channels.requestsRead, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(channels.eventsRead, F_GETFL) & O_NONBLOCK == 0)
        #expect(fcntl(channels.requestsWrite, F_GETFL) & O_NONBLOCK == 0)

        channels.closeChildEnds()
        #expect(fcntl(channels.eventsRead, F_GETFD) == -1)
        #expect(fcntl(channels.requestsWrite, F_GETFD) == -1)
    }

    @Test func raisesTheOpenFilesLimitAndReturnsTheOriginal() throws {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var original = rlimit()
        try #require(getrlimit(resource, &original) == 0)
        try #require(original.rlim_max > 64, "the hard limit is too low to lower the soft one")
        defer { _ = setrlimit(resource, &original) }

        var lowered = original
        lowered.rlim_cur = 64
        try #require(setrlimit(resource, &lowered) == 0)
        let saved = OpenFilesLimit.raise()
        #expect(saved?.soft == 64)
        #expect(saved?.hard == UInt64(original.rlim_max))
        var now = rlimit()
        getrlimit(resource, &now)
        #expect(now.rlim_cur == original.rlim_max)
        #expect(OpenFilesLimit.raise() == nil)
    }
}

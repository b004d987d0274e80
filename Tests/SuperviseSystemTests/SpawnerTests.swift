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

    // MARK: What the child gets

    /// Strays not close-on-exec, on purpose: the spawner must still keep them from the child,
    /// however many there are (it copies only the lowest descriptors).
    @Test(arguments: [1, 2_000]) func childHasExactlyDescriptorsZeroToFour(strays count: Int) throws {
        let strays = (0..<count).map { _ in open("/dev/null", O_RDONLY) }
        defer { strays.forEach { close($0) } }
        try #require(strays.allSatisfy { $0 > 4 })

        let child = try Child.spawn(["sleep", "30"])
        defer { child.kill() }
        // Until the exec, the child shares or copies this process's descriptors.
        var descriptors: [Int] = []
        eventually(timeout: 5) {
            descriptors = openDescriptors(of: child.pid)
            return descriptors == [0, 1, 2, 3, 4]
        }
        #expect(descriptors == [0, 1, 2, 3, 4])
    }

    /// The slots the descriptors are staged in let go of them: once the child has exited, its
    /// end of the pipe is closed everywhere and the supervisor's end reads end-of-file.
    @Test func theSupervisorKeepsNoCopyOfTheChildsEnds() throws {
        let child = try Child.spawn(["/bin/true"])
        #expect(child.reap(closingSupervisorEnds: false) == .exited(0))
        defer { child.channels.closeSupervisorEnds() }
        var byte: UInt8 = 0
        var poller = pollfd(fd: child.channels.requestsRead, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 5_000) == 1)
        #expect(read(child.channels.requestsRead, &byte, 1) == 0)
    }

    /// Spawns from several threads take turns with the staging slots: each child gets its own pipes.
    @Test func childrenSpawnedFromSeveralThreadsGetTheirOwnDescriptors() throws {
        let spawners = (0..<8).map { _ in SpawnerThread() }
        for (index, spawner) in spawners.enumerated() {
            spawner.start(["sh", "-c", "printf '\(index)\\n' >&4; read line <&3"])
        }
        defer { spawners.forEach { $0.end() } }
        for (index, spawner) in spawners.enumerated() {
            let child = try #require(spawner.spawned())
            #expect(readLine(from: child.channels.requestsRead) == "\(index)")
            child.kill()
        }
    }

    @Test(.skip("distinct stdout and stderr", because: standardOutputAndErrorDiffer ? nil : "needs stdout and stderr open on different files",
                in: "SpawnerTests"))
    func swapsSourcesAlreadyNumberedBelowFive() throws {
        let child = try Child.spawn(["sleep", "30"], stdout: 2, stderr: 1)
        defer { child.kill() }
        #expect(fileIdentity(path: "/proc/\(child.pid)/fd/1") == fileIdentity(fd: 2))
        #expect(fileIdentity(path: "/proc/\(child.pid)/fd/2") == fileIdentity(fd: 1))
    }

    @Test func descriptorsThreeAndFourAreTheProtocolPipes() throws {
        let child = try Child.spawn(
            ["sh", "-c", "printf 'hi\\n' >&4; read line <&3; printf '%s\\n' \"$line\" >&4"])
        #expect(readLine(from: child.channels.requestsRead) == "hi")
        let event = "did-finish-launching foreground\n"
        #expect(write(child.channels.eventsWrite, event, event.utf8.count) == event.utf8.count)
        #expect(readLine(from: child.channels.requestsRead) == "did-finish-launching foreground")
        #expect(child.reap() == .exited(0))
    }

    @Test func childStartsWithDefaultSignalsAndAnEmptyMask() throws {
        var terminate = sigset_t()
        sigemptyset(&terminate)
        sigaddset(&terminate, SIGTERM)
        var oldMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &terminate, &oldMask)
        let oldPipeHandler = signal(SIGPIPE, SIG_IGN)
        defer {
            signal(SIGPIPE, oldPipeHandler)
            pthread_sigmask(SIG_SETMASK, &oldMask, nil)
        }

        let child = try Child.spawn(["sleep", "30"])
        defer { child.kill() }
        let status = try String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)
        #expect(status.contains("SigBlk:\t0000000000000000\n"))
        #expect(status.contains("SigIgn:\t0000000000000000\n"))
    }

    @Test func childLeadsItsOwnProcessGroup() throws {
        let child = try Child.spawn(["sleep", "30"])
        defer { child.kill() }
        #expect(getpgid(child.pid) == child.pid)
        #expect(getpgid(child.pid) != getpgrp())
    }

    @Test func appliesEnvironmentWorkingDirectoryAndPidVariable() throws {
        let directory = TemporaryDirectory(prefix: "supervise-spawner")
        let child = try Child.spawn(
            ["sh", "-c", "printf '%s|%s|%s\\n' \"$GREETING\" \"$(pwd -P)\" \"$SUPERVISE_PID\" >&4"],
            environment: ["GREETING=hello world", "SUPERVISE_PID=stale", "PATH=/usr/bin:/bin"],
            workingDirectory: directory.path,
            pidVariable: "SUPERVISE_PID")
        let resolved = URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path
        #expect(readLine(from: child.channels.requestsRead) == "hello world|\(resolved)|\(child.pid)")
        #expect(child.reap() == .exited(0))
    }

    @Test func restoresTheOpenFilesLimitInTheChild() throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let soft = min(UInt64(limit.rlim_max), 200)
        let child = try Child.spawn(
            ["sh", "-c", "ulimit -n >&4"], openFilesLimit: (soft: soft, hard: UInt64(limit.rlim_max)))
        #expect(readLine(from: child.channels.requestsRead) == "\(soft)")
        #expect(child.reap() == .exited(0))
    }

    @Test func takingTheTerminalWithoutOneIsHarmless() throws {
        let child = try Child.spawn(["sh", "-c", "exit 4"], takeTerminal: true)
        #expect(child.reap() == .exited(4))
    }

    @Test(.skip("cgroup v2 at /sys/fs/cgroup/unified", because: cgroupV2IsWritable ? nil : "needs a writable cgroup v2 hierarchy there",
                in: "SpawnerTests"))
    func placesTheChildInTheCgroupBeforeExec() throws {
        let name = "supervise-spawner-test-\(getpid())"
        let cgroup = "/sys/fs/cgroup/unified/" + name
        #expect(mkdir(cgroup, 0o755) == 0)
        defer { removeCgroup(cgroup) }
        let procs = open(cgroup + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
        #expect(procs >= 0)
        defer { close(procs) }

        let child = try Child.spawn(["sleep", "30"], cgroupProcsFD: procs)
        defer { child.kill() }
        let membership = try String(contentsOfFile: "/proc/\(child.pid)/cgroup", encoding: .utf8)
        #expect(membership.split(separator: "\n").contains("0::/\(name)"))
    }

    /// The parent-death signal follows the thread that forked: when it ends, the child is killed.
    /// (Killing the whole supervisor is the same signal; a thread is the part a test can end.)
    @Test func childIsKilledWhenItsSpawningThreadEnds() throws {
        let spawned = SpawnedFromThread()
        let thread = Thread { spawned.run(["sleep", "30"]) }
        thread.start()
        spawned.finished.wait()
        let child = try #require(spawned.child)
        #expect(child.reap() == .signaled(SIGKILL))
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

// MARK: - Test support

/// A spawned child with its protocol channels; the test reaps it.
private struct Child {
    let pid: Int32
    let channels: ProtocolChannels

    static func spawn(
        _ arguments: [String], environment: [String] = ["PATH=/usr/bin:/bin"],
        workingDirectory: String? = nil, stdout: Int32 = 1, stderr: Int32 = 2, cgroupProcsFD: Int32? = nil, takeTerminal: Bool = false,
        pidVariable: String? = nil, openFilesLimit: (soft: UInt64, hard: UInt64)? = nil,
        privileges: ChildPrivileges = ChildPrivileges()
    ) throws -> Child {
        let channels = try ProtocolChannels()
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer {
            close(devNull)
            channels.closeChildEnds()
        }
        let request = SpawnRequest(
            arguments: arguments, environment: environment, workingDirectory: workingDirectory,
            stdin: devNull, stdout: stdout, stderr: stderr,
            eventsFD: channels.eventsRead, requestsFD: channels.requestsWrite,
            cgroupProcsFD: cgroupProcsFD, takeTerminal: takeTerminal, pidVariable: pidVariable,
            openFilesLimit: openFilesLimit, privileges: privileges)
        do {
            return Child(pid: try Spawner.spawn(request), channels: channels)
        } catch {
            channels.closeSupervisorEnds()
            throw error
        }
    }

    /// Waits for the child's end and closes the supervisor's ends (unless told not to).
    func reap(closingSupervisorEnds: Bool = true) -> ChildTermination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if closingSupervisorEnds { channels.closeSupervisorEnds() }
        return ChildTermination(waitStatus: status)
    }

    func kill() {
        Glibc.kill(pid, SIGKILL)
        _ = reap()
    }
}

/// Spawns from a thread of its own, which then ends.
private final class SpawnedFromThread: @unchecked Sendable {
    let finished = DispatchSemaphore(value: 0)
    private(set) var child: Child?

    func run(_ arguments: [String]) {
        child = try? Child.spawn(arguments)
        finished.signal()
    }
}

/// A thread that spawns a child and lives on until `end`, so that the child's parent-death
/// signal does not fire meanwhile.
private final class SpawnerThread: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private let ending = DispatchSemaphore(value: 0)
    private var child: Child?

    func start(_ arguments: [String]) {
        Thread {
            self.child = try? Child.spawn(arguments)
            self.ready.signal()
            self.ending.wait()
        }.start()
    }

    /// Waits for the spawn; the child, or nil when it failed.
    func spawned() -> Child? {
        ready.wait()
        return child
    }

    func end() { ending.signal() }
}

/// The fds open in a process, sorted.
private func openDescriptors(of pid: Int32) -> [Int] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return names.compactMap { Int($0) }.sorted()
}

/// Reads one line from a non-blocking fd, waiting up to 10 s for it.
private func readLine(from fd: Int32) -> String? {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    let deadline = Date(timeIntervalSinceNow: 10)
    while Date() < deadline {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) >= 0 else { return nil }
        let count = read(fd, &byte, 1)
        if count == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        } else if count == 0 || errno != EAGAIN {
            return nil
        }
    }
    return nil
}

/// Device and inode of an open file, to tell which file a descriptor is.
private func fileIdentity(fd: Int32) -> [UInt64]? {
    var info = stat()
    return fstat(fd, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
}

private func fileIdentity(path: String) -> [UInt64]? {
    var info = stat()
    return stat(path, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
}

private let standardOutputAndErrorDiffer = fileIdentity(fd: 1) != fileIdentity(fd: 2)

private let cgroupV2IsWritable = access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) == 0

/// rmdir, retried while the last reaped process is still leaving.
private func removeCgroup(_ path: String) {
    eventually(timeout: 1, interval: 0.02) { rmdir(path) == 0 || errno != EBUSY }
}

import Foundation
import Glibc
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem
import SuperviseTestSupport
import _SuperviseCShims

/// What a spawned child gets from the spawner: its descriptors, signals, group, environment,
/// limits and cgroup, looked at from the outside (`/proc`) and from inside the child.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SpawnedChildTests {
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
        let settled = eventually(timeout: 5) {
            descriptors = openDescriptors(of: child.pid)
            return descriptors == [0, 1, 2, 3, 4]
        }
        #expect(settled, "the child's descriptors after 5 s: \(descriptors)")
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
}

import Foundation
import Glibc
import SuperviseTestSupport
@testable import SuperviseLifecycle
@testable import SuperviseSystem

// What SpawnerTests and SpawnedChildTests share: a spawned child, spawning from a thread of
// its own, and looks at descriptors and files.

/// A spawned child with its protocol channels; the test reaps it.
struct Child {
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
final class SpawnedFromThread: @unchecked Sendable {
    let finished = DispatchSemaphore(value: 0)
    private(set) var child: Child?

    func run(_ arguments: [String]) {
        child = try? Child.spawn(arguments)
        finished.signal()
    }
}

/// A thread that spawns a child and lives on until `end`, so that the child's parent-death
/// signal does not fire meanwhile.
final class SpawnerThread: @unchecked Sendable {
    let ready = DispatchSemaphore(value: 0)
    let ending = DispatchSemaphore(value: 0)
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
func openDescriptors(of pid: Int32) -> [Int] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return names.compactMap { Int($0) }.sorted()
}

/// Reads one line from a non-blocking fd, waiting up to 10 s for it.
func readLine(from fd: Int32) -> String? {
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
func fileIdentity(fd: Int32) -> [UInt64]? {
    var info = stat()
    return fstat(fd, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
}

func fileIdentity(path: String) -> [UInt64]? {
    var info = stat()
    return stat(path, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
}

let standardOutputAndErrorDiffer = fileIdentity(fd: 1) != fileIdentity(fd: 2)

let cgroupV2IsWritable = access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) == 0

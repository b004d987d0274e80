import Foundation
import Glibc

/// One process as `/proc/PID/stat` shows it.
struct ProcessEntry: Hashable {
    let pid: Int32
    let parent: Int32
    let group: Int32
    let state: Character
    /// Clock ticks after boot at which it started: with the pid, it names one process even if the pid is reused.
    let startTime: UInt64

    var identity: ProcessIdentity { ProcessIdentity(pid: pid, startTime: startTime) }
    var isDead: Bool { state == "Z" || state == "X" }
    /// Whether this very process still exists and is not a zombie.
    var isAlive: Bool { identity.isAlive }
}

/// A process, not just a pid: a pid reused by a later process is another identity.
struct ProcessIdentity: Hashable {
    let pid: Int32
    let startTime: UInt64

    /// Whether this very process still exists and is not a zombie.
    var isAlive: Bool {
        guard let now = ProcessInspector.snapshot(pid) else { return false }
        return now.startTime == startTime && !now.isDead
    }
}

/// Reads processes, threads and cgroups from `/proc` and `/sys/fs/cgroup`: what the kernel says,
/// to hold against what supervise says.
enum ProcessInspector {
    static func snapshot(_ pid: Int32) -> ProcessEntry? {
        guard let stat = read("/proc/\(pid)/stat") else { return nil }
        return parse(stat, pid: pid)
    }

    /// `root` and every process below it.
    static func tree(of root: Int32) -> [ProcessEntry] {
        (snapshot(root).map { [$0] } ?? []) + descendants(of: root)
    }

    /// The pids of `parent`'s children that have not exited (a server master's workers).
    static func liveChildren(of parent: Int32) -> Set<Int32> {
        Set(children(of: parent).compactMap(snapshot).filter { $0.parent == parent && !$0.isDead }.map(\.pid))
    }

    /// Every process whose chain of parents leads to `ancestor` (not `ancestor` itself), found
    /// through the kernel's children links: reading every process on the machine for each look
    /// cost the suite seconds of CPU, with eight tests polling side by side.
    static func descendants(of ancestor: Int32) -> [ProcessEntry] {
        var found: [ProcessEntry] = [], frontier = [ancestor]
        while let next = frontier.popLast() {
            // A child reaped and its pid reused between the reads names another process's parent.
            for child in children(of: next).compactMap(snapshot) where child.parent == next {
                found.append(child)
                frontier.append(child.pid)
            }
        }
        return found
    }

    /// The pids `/proc/PID/task/*/children` list for `pid`: each thread's children, zombies too.
    private static func children(of pid: Int32) -> [Int32] {
        threads(of: pid).flatMap { task in
            (read("/proc/\(pid)/task/\(task)/children") ?? "").split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// The thread ids of `pid` (the names in `/proc/PID/task`); none once it is gone.
    private static func threads(of pid: Int32) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    }

    /// Each thread's state letter, and the kernel function a thread in `D` waits in.
    static func threadStates(_ pid: Int32) -> [(state: Character, wchan: String)] {
        threads(of: pid).compactMap { thread in
            guard let stat = read("/proc/\(pid)/task/\(thread)/stat"), let info = parse(stat, pid: pid) else { return nil }
            let wchan = info.state == "D" ? read("/proc/\(pid)/task/\(thread)/wchan") ?? "" : ""
            return (info.state, wchan)
        }
    }

    /// Whether a thread of `pid` is stopped (`T`, or `t` when traced).
    static func isStopped(_ pid: Int32) -> Bool {
        threadStates(pid).contains { "Tt".contains($0.state) }
    }

    /// Whether no thread of `pid` can run: every one stopped or dead, or in `D` parked in `vfork`
    /// behind a child stopped before its exec (dash runs commands with vfork), as supervise counts it.
    static func isHalted(_ pid: Int32) -> Bool {
        threadStates(pid).allSatisfy { "TtZX".contains($0.state) || ($0.state == "D" && vforkWaits.contains($0.wchan)) }
    }

    private static let vforkWaits: Set<String> = ["kernel_clone", "wait_for_vfork_done", "_do_fork", "do_fork"]

    /// The command line of `pid` with spaces between arguments (a process may rewrite it, as
    /// PostgreSQL and nginx do: `postgres: checkpointer`, `nginx: worker process`).
    static func commandLine(_ pid: Int32) -> String {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// The pids in `cgroup` and every cgroup below it.
    static func cgroupMembers(_ cgroup: String) -> [Int32] {
        var pids = (read(cgroup + "/cgroup.procs") ?? "").split(separator: "\n").compactMap { Int32($0) }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: cgroup)) ?? []
        for entry in entries {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: cgroup + "/" + entry, isDirectory: &isDirectory), isDirectory.boolValue {
                pids += cgroupMembers(cgroup + "/" + entry)
            }
        }
        return pids
    }

    /// The value of `key` in a flat-keyed file such as `cgroup.events` (`frozen 1`), or
    /// `/proc/PID/status` (`SigIgn:\t0000000000000001`, with `separator` a tab).
    static func keyedValue(_ path: String, _ key: String, separator: Character = " ") -> String? {
        for line in (read(path) ?? "").split(separator: "\n") {
            let words = line.split(separator: separator)
            if words.count == 2, words[0] == key { return String(words[1]) }
        }
        return nil
    }

    /// Whether `pid` ignores `signal` (`SigIgn` in `/proc/PID/status`).
    static func ignores(_ signal: Int32, _ pid: Int32) -> Bool {
        let mask = keyedValue("/proc/\(pid)/status", "SigIgn:", separator: "\t").flatMap { UInt64($0, radix: 16) } ?? 0
        return mask & (1 << (UInt64(signal) - 1)) != 0
    }

    /// The file's text without surrounding white space, or `nil` if it can't be read. Read with
    /// `open`/`read`: tests poll `/proc` every few milliseconds, and Foundation's reading and
    /// trimming cost the suite seconds of CPU.
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? start
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// `pid (comm) S ppid pgrp …`: the fields after the last `)` (comm may hold anything).
    private static func parse(_ stat: String, pid: Int32) -> ProcessEntry? {
        let bytes = Array(stat.utf8)
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 20)
        func number<T: FixedWidthInteger>(_ index: Int) -> T? { T(String(decoding: fields[index], as: UTF8.self)) }
        guard fields.count > 19, let state = fields[0].first, let parent: Int32 = number(1), let group: Int32 = number(2),
              let start: UInt64 = number(19) else { return nil }
        return ProcessEntry(pid: pid, parent: parent, group: group, state: Character(UnicodeScalar(state)), startTime: start)
    }
}

import Foundation
import Testing
import SuperviseTestSupport

/// A container's view of the cgroup trees, made with what this hybrid host has: a cgroup v2 cgroup
/// of the test's own (the container's, as `/docker/ID` would be), a private cgroup namespace rooted
/// there, and a private mount namespace where `setup` (shell) remounts `/sys/fs/cgroup` as a runtime
/// would. `supervise` runs in it; nothing is changed outside, and the cgroup is removed at the end.
struct ContainerCgroups {
    /// Why the view can't be made here, or `nil` when it can.
    static let unavailableReason: String? = {
        if let reason = Backend.cgroup2.unavailableReason { return reason }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: PIDNamespace.unshare)
        probe.arguments = ["--cgroup", "--mount", "true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "\(PIDNamespace.unshare) could not be run" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "unshare --cgroup --mount fails here (it needs root)"
    }()

    /// The v2 tree of this host and its v1 freezer tree, where they are mounted.
    static var v2Mount: String { Backend.mountPoint(type: "cgroup2", option: nil) ?? "/sys/fs/cgroup" }
    static var v1FreezerMount: String? { Backend.mountPoint(type: "cgroup", option: "freezer") }

    /// Runs `supervise ARGUMENTS` in the container's view after `setup`, with `stdin` as its commands.
    static func run(setup: String, _ arguments: [String], stdin: String, timeout: Double = 30) throws -> (status: Int32, stdout: String, stderr: String, leftInCgroup: [String]) {
        let cgroup = v2Mount + "/supervise-test-container-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard mkdir(cgroup, 0o755) == 0 else { throw SetupFailure("mkdir \(cgroup): \(String(cString: strerror(errno)))") }
        defer { removeCgroup(cgroup) }
        let supervise = ([Supervise.binary] + arguments).map(ShellScript.quoted).joined(separator: " ")
        // The shell moves itself into the cgroup, so the namespace unshare makes is rooted there.
        let inside = "set -e; \(setup); exec \(supervise)"
        let run = try ShellScript.run("echo $$ > \(ShellScript.quoted(cgroup + "/cgroup.procs")) && exec \(PIDNamespace.unshare) --cgroup --mount sh -c \(ShellScript.quoted(inside))",
                                      stdin: stdin, timeout: timeout, drain: 2)
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: cgroup)) ?? []).filter { $0.hasPrefix("supervise-") }
        return (run.status, run.stdout, run.stderr, left)
    }
}

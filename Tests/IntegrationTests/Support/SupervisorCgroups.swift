import Foundation

/// Finds a supervisor's own cgroups from the outside, whatever they are named.
enum SupervisorCgroups {
    /// The supervisor cgroups (`…/supervise-PID-TOKEN`) holding process `pid`, one per hierarchy it is in,
    /// read from `/proc/PID/cgroup`.
    static func holding(_ pid: Int32) -> [String] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return nil }
            let mount = fields[0] == "0" ? Backend.mountPoint(type: "cgroup2", option: nil)
                : fields[1].split(separator: ",").contains("freezer") ? Backend.mountPoint(type: "cgroup", option: "freezer") : nil
            let components = fields[2].split(separator: "/")
            guard let mount, let own = components.firstIndex(where: isSupervisorName) else { return nil }
            return mount + "/" + components[...own].joined(separator: "/")
        }
    }

    /// The supervisor cgroup a child cgroup `path` is in (its parent).
    static func owning(_ path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    /// `supervise-PID-TOKEN`, TOKEN 16 lower-case hex digits.
    static func isSupervisorName(_ name: Substring) -> Bool {
        name.wholeMatch(of: /supervise-[0-9]+-[0-9a-f]{16}/) != nil
    }

    /// The processes in cgroup `path` (as this test's pid namespace numbers them).
    static func pids(in path: String) -> [Int32] {
        ((try? String(contentsOfFile: path + "/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
    }
}

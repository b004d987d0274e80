import Foundation
import Testing
import SuperviseTestSupport

/// The freezer backends and whether this machine can run them.
enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case cgroup2, cgroup1, sigstop

    var testDescription: String { rawValue }

    /// Why the backend can't run here, or `nil` when it can.
    var unavailableReason: String? {
        switch self {
        case .sigstop:
            return nil
        case .cgroup2:
            guard let mount = Self.mountPoint(type: "cgroup2", option: nil) else { return "no cgroup v2 mount" }
            return Self.writableReason(mount, "cgroup v2")
        case .cgroup1:
            guard let mount = Self.mountPoint(type: "cgroup", option: "freezer") else { return "no cgroup v1 freezer mount" }
            return Self.writableReason(mount, "cgroup v1 freezer")
        }
    }

    var isAvailable: Bool { unavailableReason == nil }

    /// The backends the scenarios of `suite` run against here; prints why each other one is skipped.
    static func usable(in suite: String) -> [Backend] {
        SkipReason.runnable(allCases, in: suite) { $0.unavailableReason }
    }

    /// Where the first file system of `type` (with `option` among its super options) is mounted.
    static func mountPoint(type: String, option: String?) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2 else { continue }
            let left = halves[0].split(separator: " "), right = halves[1].split(separator: " ")
            guard left.count > 4, right.count > 2, right[0] == type else { continue }
            if let option, !right[2].split(separator: ",").contains(Substring(option)) { continue }
            return String(left[4])
        }
        return nil
    }

    private static func writableReason(_ mount: String, _ name: String) -> String? {
        // Unique to the call: tests running at once ask at once, and one's EEXIST is no answer.
        let probe = mount + "/supervise-test-probe-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        guard mkdir(probe, 0o755) == 0 else {
            return "\(name) at \(mount) is not writable: \(String(cString: strerror(errno))) (needs root or a delegated cgroup)"
        }
        rmdir(probe)
        return nil
    }
}

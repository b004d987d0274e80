import Foundation
import Testing
import SuperviseTestSupport

/// `supervise doctor` says what this supervisor can do, as the kernel tells it, and leaves no
/// cgroup behind; run as root and, through `--user`, as an unprivileged user.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct DoctorTests {
    /// The doctor's `KEY: VALUE` lines.
    private func lines(_ output: String) -> [String: String] {
        Dictionary(output.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let colon = line.range(of: ": ") else { return nil }
            return (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
        }, uniquingKeysWith: { $1 })
    }

    /// Runs `supervise ARGUMENTS` to its end (`Supervise.run` would put `--report` before `doctor`).
    private func supervise(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String, pid: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Supervise.binary)
        process.arguments = arguments
        let output = CapturedOutput(of: process)
        try process.run()
        process.waitUntilExit()
        output.expectEnd(of: "supervise \(arguments.joined(separator: " "))", timeout: 5)
        return (process.terminationStatus, output.stdout, output.stderr, process.processIdentifier)
    }

    @Test func saysWhichFreezersWorkAndWhetherUsersCanBeSwitched() throws {
        let run = try supervise(["doctor"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let facts = lines(run.stdout)
        for backend in Backend.allCases {
            let said = facts["freezer \(backend.rawValue)"] ?? ""
            #expect(said.hasPrefix("usable") == backend.isAvailable, "\(backend): \(said) / \(backend.unavailableReason ?? "usable")")
        }
        let first = Backend.allCases.first { $0.isAvailable }!
        #expect(facts["freezer auto"] == first.rawValue, "\(run.stdout)")
        #expect(facts["user"]?.hasPrefix("uid \(getuid())") == true)
        #expect(facts["--user"]?.hasPrefix(getuid() == 0 ? "yes" : "no: lacks") == true, "\(run.stdout)")
        let psi = FileManager.default.isReadableFile(atPath: "/proc/pressure/memory")
        #expect(facts["memory pressure"]?.hasPrefix(psi ? "usable: a trigger on " : "not usable: ") == true, "\(run.stdout)")
        for mount in ["/sys/fs/cgroup/unified", "/sys/fs/cgroup/freezer"] {
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: mount)) ?? [])
                .filter { $0.hasPrefix("supervise-\(run.pid)-") }
            #expect(left.isEmpty, "the doctor's probe cgroups are left: \(left)")
        }
    }

    @Test(.skip("--user", because: TestUser.missingReason, in: "DoctorTests"))
    func anUnprivilegedSupervisorSaysWhatItLacks() throws {
        let run = try supervise(["--control", "none", "--log-level", "error", "--user", TestUser.name, "--", Supervise.binary, "doctor"])
        #expect(run.status == 0, "\(run.stderr)")
        let facts = lines(run.stdout)
        #expect(facts["capabilities"] == "none (effective)", "\(run.stdout)")
        #expect(facts["bounding set"] == "none (the most a child can be granted)", "\(run.stdout)")
        #expect(facts["--user"] == "no: lacks cap_setgid, cap_setuid, cap_setpcap (run supervise as root)", "\(run.stdout)")
        #expect(facts["no-new-privileges"]?.hasPrefix("set") == true, "\(run.stdout)")
        #expect(facts["freezer cgroup2"]?.hasPrefix("not usable") == true, "\(run.stdout)")
        #expect(facts["freezer auto"] == "sigstop", "\(run.stdout)")
    }

    @Test func aMistakeIsOneLineAndExit2() throws {
        let run = try supervise(["doctor", "--bogus"])
        #expect(run.status == 2 && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("supervise doctor: error: Unknown option '--bogus'"), "\(run.stderr)")
    }

    /// Each condition a scheduled task may require is read here and said; in a fresh network
    /// namespace (no route at all) the network does not hold.
    @Test func saysWhetherEachConditionHolds() throws {
        let run = try supervise(["doctor"])
        let facts = lines(run.stdout)
        for condition in ["idle", "power", "network"] {
            let said = facts["condition \(condition)"] ?? ""
            #expect(["holds", "does not hold", "never holds"].contains { said.hasPrefix($0) }, "\(run.stdout)")
            #expect(said.contains("re-read every 5 s while a task waits"), "\(said)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            print("skipped: DoctorTests: the network namespace half: /usr/bin/unshare is missing")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--net", Supervise.binary, "doctor"]
        let output = CapturedOutput(of: process)
        try process.run()
        process.waitUntilExit()
        output.expectEnd(of: "unshare --net supervise doctor", timeout: 5)
        guard process.terminationStatus == 0 else {
            print("skipped: DoctorTests: unshare --net failed here: \(output.stderr)")
            return
        }
        #expect(lines(output.stdout)["condition network"]?.hasPrefix("does not hold") == true, "\(output.stdout)")
    }
}

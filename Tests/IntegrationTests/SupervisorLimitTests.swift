import Foundation
import Testing
import SuperviseTestSupport

/// When `supervise` can't start a child for a failure of its own — fork refused by a pids limit,
/// a pipe refused by the open-files limit — the run exits 125, not 126 ("not executable"): the
/// command was fine, the supervisor failed.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct SupervisorLimitTests {
    let temporary = TemporaryDirectory()

    /// The pids controller's hierarchy: cgroup v2's where it has the controller, else v1's.
    static let pidsHierarchy: String? = {
        for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
            let controllers = (try? String(contentsOfFile: root + "/cgroup.controllers", encoding: .utf8)) ?? ""
            if controllers.split(separator: " ").contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "pids" }) {
                return root
            }
        }
        return FileManager.default.fileExists(atPath: "/sys/fs/cgroup/pids/cgroup.procs") ? "/sys/fs/cgroup/pids" : nil
    }()

    static let pidsMissingReason: String? = {
        guard getuid() == 0 else { return "making a pids cgroup needs root" }
        return pidsHierarchy == nil ? "no cgroup hierarchy with the pids controller is mounted" : nil
    }()

    func report(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(.skip("a pids limit", because: pidsMissingReason, in: "SupervisorLimitTests"))
    func aForkRefusedByThePidsLimitIsTheSupervisorsFailure() throws {
        let cgroup = Self.pidsHierarchy! + "/supervise-limit-test-\(getpid())"
        try FileManager.default.createDirectory(atPath: cgroup, withIntermediateDirectories: false)
        defer { rmdir(cgroup) }
        let reportPath = temporary.file("run.json")
        // pids.max 1: the supervisor itself, alone in the cgroup; its fork is refused (EAGAIN).
        let run = try ShellScript.run(
            "echo $$ > \(cgroup)/cgroup.procs && echo 1 > \(cgroup)/pids.max && exec "
                + [Supervise.binary, "--freezer", "sigstop", "--report", reportPath, "--", "true"].map(ShellScript.quoted)
                .joined(separator: " "),
            stdin: "")
        #expect(run.status == 125, "\(run.stderr)")
        #expect(run.stderr.contains("supervise failed: cannot start 'true': fork failed: Resource temporarily unavailable"),
                "\(run.stderr)")
        let object = try report(reportPath)
        #expect(object["exit_status"] as? Int == 125)
        let exit = (object["children"] as? [[String: Any]])?.first?["exit"] as? [String: Any] ?? [:]
        #expect(exit["status"] as? Int == 125, "\(exit)")
        #expect((exit["description"] as? String)?.contains("fork failed") == true, "\(exit)")
    }

    /// Every open-files limit from one too low to start the supervisor up to one that is enough:
    /// whatever the supervisor can't make (its own descriptors, a protocol pipe, the exec-status
    /// pipe, the child's staged descriptors), the run exits 125 or the child runs; never 126.
    @Test func aPipeRefusedByTheOpenFilesLimitIsTheSupervisorsFailure() throws {
        var pipeFailures = 0
        for limit in 4...40 {
            let run = try ShellScript.run(
                "ulimit -n \(limit) && exec "
                    + [Supervise.binary, "--freezer", "sigstop", "--", "true"].map(ShellScript.quoted).joined(separator: " "),
                stdin: "")
            if run.status == 0 { continue }
            #expect(run.status == 125, "ulimit -n \(limit): \(run.stderr)")
            if run.stderr.contains("protocol pipe") || run.stderr.contains("exec-status pipe") { pipeFailures += 1 }
        }
        #expect(pipeFailures > 0, "no open-files limit made a pipe fail")
    }
}

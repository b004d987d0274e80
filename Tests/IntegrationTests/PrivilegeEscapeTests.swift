import Foundation
import Testing
import SuperviseTestSupport

/// A `--user` child can't undo its supervision or its sibling's, on every freezer: each attempt
/// of `Workers/escape-probe.py` — thaw itself or its frozen sibling, leave its cgroup, signal
/// the supervisor, SIGCONT, kill or ptrace the sibling, open the sibling's protocol pipes — must fail
/// with EPERM or EACCES, and the cgroups supervise made must be root's and not writable by others.
/// The sibling runs as root in the supervisor's session, or as another user in its own.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct PrivilegeEscapeTests {
    static let siblings: [String?] = [nil, TestUser.other]

    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeEscapeTests"),
          .skip("python3", because: TestUser.pythonMissingReason, in: "PrivilegeEscapeTests"),
          arguments: Backend.usable(in: "PrivilegeEscapeTests"), siblings)
    func everyEscapeOfAUserChildIsDenied(backend: Backend, siblingUser: String?) throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let config = temporary.file("supervise.toml")
        try """
            freezer = "\(backend.rawValue)"
            window = 0

            [child.sibling]
            command = ["sleep", "60"]
            \(siblingUser.map { "user = \"\($0)\"" } ?? "")

            [child.probe]
            command = ["python3", "\(Supervise.worker("escape-probe.py"))", "\(backend.rawValue)"]
            user = "\(TestUser.name)"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try Supervise.run(["--config", config], stdin: """
            background sibling
            wait suspended sibling timeout=20s
            wait exited probe timeout=30s
            status
            terminate all
            """ + "\n", timeout: 60)

        #expect(run.status == 0 || run.status == 143, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { line in
            line.split(separator: "|", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        #expect(lines.contains("escape-probe done"), "the probe did not finish:\n\(run.stdout)\n\(run.stderr)")
        let attempts = lines.filter { $0.hasPrefix("escape ") }
        let names = Set(attempts.map { $0.split(separator: " ")[1] })
        let expected = ["signal-supervisor-term", "signal-supervisor-cont", "signal-sibling-cont", "signal-sibling-kill",
                        "sibling-events-pipe", "sibling-requests-pipe", "supervisor-fds", "ptrace-supervisor", "ptrace-sibling"]
            + (backend == .sigstop ? ["move-self-to-v2-root"]
                : ["thaw-self", "thaw-sibling", "move-self-up", "move-self-to-root", "move-sibling-out", "make-cgroup"])
        #expect(names == Set(expected.map { Substring($0) }), "every attempt made once: \(run.stdout)")
        for attempt in attempts {
            let result = attempt.split(separator: " ").last ?? ""
            #expect(result == "EPERM" || result == "EACCES", "\(attempt): it must be denied")
        }
        for file in lines.filter({ $0.hasPrefix("cgroup-file ") }) {
            let fields = file.split(separator: " ")
            let mode = Int(fields[3].dropFirst(2), radix: 8) ?? 0o777
            #expect(fields[2] == "0" && mode & 0o022 == 0, "\(file): must be root's, writable by root alone")
        }
        let sibling = lines.first { $0.hasPrefix("{\"name\":\"sibling\"") } ?? ""
        #expect(sibling.contains("\"state\":\"suspended\""), "the sibling was thawed or killed: \(sibling)")
    }

    /// The documented limit: children under the same uid can signal each other.
    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeEscapeTests"))
    func siblingsUnderTheSameUserCanSignalEachOther() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let config = temporary.file("supervise.toml")
        try """
            [child.sibling]
            command = ["sleep", "60"]
            user = "\(TestUser.name)"

            [child.killer]
            command = ["sh", "-c", "sleep 0.5; pkill -KILL -u \(TestUser.name) -x sleep && echo killed"]
            user = "\(TestUser.name)"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try Supervise.run(["--config", config], stdin: "wait exited sibling timeout=20s\n", timeout: 30)
        #expect(run.stdout.contains("killed"), "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("sibling: killed by SIGKILL"), "\(run.stderr)")
    }
}

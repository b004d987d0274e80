import Foundation
import Testing
import SuperviseTestSupport

/// The stop signal reaches every process of a child's tree, including descendants that left its
/// process group with `setsid`: they get the chance to clean up before the grace ends.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct StopSignalTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }
    var marker: String { directory.appendingPathComponent("term").path }

    /// A shell that starts a `setsid` grandchild which records SIGTERM in `marker` and exits 0,
    /// waits until it runs, then does `then`.
    func worker(then: String) -> [String] {
        let grandchild = "trap 'echo got-term >> \(marker); exit 0' TERM; echo \\$\\$ > \(marker).pid; "
            + "while :; do sleep 0.05; done"
        // The grandchild must not hold the supervisor's output open, or a survivor would keep the test waiting.
        return ["sh", "-c", "setsid sh -c \"\(grandchild)\" >/dev/null 2>&1 & "
                + "while [ ! -s \(marker).pid ]; do sleep 0.02; done; \(then)"]
    }

    /// Kills the grandchild if it survived, so a failure leaves nothing running.
    func killSurvivor() {
        let text = (try? String(contentsOfFile: marker + ".pid", encoding: .utf8)) ?? ""
        if let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 { kill(pid, SIGKILL) }
    }

    var grandchildGotTerm: Bool {
        ((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").contains("got-term")
    }

    @Test(arguments: Backend.usable(in: "StopSignalTests"))
    func terminateSignalsADescendantThatLeftTheGroup(backend: Backend) throws {
        let run = try Supervise.run(["--freezer", backend.rawValue, "--grace", "5", "--"] + worker(then: "while :; do sleep 0.05; done"),
                                    stdin: "sleep 0.5\nterminate\n")
        defer { killSurvivor() }
        #expect(grandchildGotTerm, "the setsid grandchild never saw SIGTERM: \(run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.elapsed < 4.5, "the grandchild had to be killed at the grace's end")
    }

    @Test(arguments: Backend.usable(in: "StopSignalTests"))
    func leftoversOfAnExitedChildGetTheStopSignal(backend: Backend) throws {
        let run = try Supervise.run(["--freezer", backend.rawValue, "--grace", "5", "--"] + worker(then: "exit 0"))
        defer { killSurvivor() }
        #expect(grandchildGotTerm, "the setsid grandchild never saw SIGTERM: \(run.stderr)")
        #expect(run.stderr.contains("left processes behind: sending them SIGTERM\n"), "\(run.stderr)")
        #expect(run.timeline("note").contains("the child left processes behind: sending them SIGTERM"), "\(run.timeline)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.elapsed < 4.5, "the grandchild had to be killed at the grace's end")
    }
}

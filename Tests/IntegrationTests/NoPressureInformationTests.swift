import Foundation
import Testing
import SuperviseTestSupport

/// A kernel without pressure stall information, made for real: in a private mount namespace a
/// tmpfs hides `/proc/pressure`, and `supervise` runs in a cgroup v2 with PSI accounting off
/// (`cgroup.pressure` 0), which hides its `memory.pressure`, so no file takes a trigger, as with
/// no CONFIG_PSI. `supervise doctor` says so, a run asked to watch says why in one line, and the
/// `--suspended-memory` budget still reclaims, on every freezer.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(3))) struct NoPressureInformationTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()

    /// Why a kernel without PSI can't be made here, or `nil`.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: PIDNamespace.unshare) else { return "util-linux's unshare is not installed" }
        guard getuid() == 0 else { return "mounting a tmpfs over /proc/pressure needs root" }
        guard let unified = Backend.mountPoint(type: "cgroup2", option: nil) else { return "no cgroup v2 mount to turn PSI off in" }
        guard FileManager.default.fileExists(atPath: unified + "/cgroup.pressure") else {
            return "the kernel has no cgroup.pressure (before 6.1, or no PSI at all)"
        }
        return Backend.cgroup2.unavailableReason
    }()

    /// What no file taking a trigger makes the supervisor say.
    static let why = "/proc/pressure/memory: the kernel has no pressure stall information (CONFIG_PSI)"

    /// Runs `supervise ARGUMENTS` (with `environment`) to its end where no pressure file takes a
    /// trigger, with `stdin` as its input.
    func withoutPressureInformation(_ arguments: [String], environment: [String: String] = [:],
                                    stdin: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        let unified = try #require(Backend.mountPoint(type: "cgroup2", option: nil))
        let cgroup = unified + "/supervise-no-psi-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: cgroup, withIntermediateDirectories: false)
        defer { #expect(rmdir(cgroup) == 0, "\(cgroup) is left: \(String(cString: strerror(errno)))") }
        try "0".write(toFile: cgroup + "/cgroup.pressure", atomically: false, encoding: .utf8)
        let command = (["env"] + environment.map { "\($0)=\($1)" } + [Supervise.binary] + arguments).map(ShellScript.quoted)
        let inside = "mount -t tmpfs none /proc/pressure && echo $$ > \(ShellScript.quoted(cgroup + "/cgroup.procs")) && exec "
            + command.joined(separator: " ")
        return try ShellScript.run("exec \(PIDNamespace.unshare) --mount --propagation private sh -c \(ShellScript.quoted(inside))",
                                   stdin: stdin)
    }

    @Test(.skip("a kernel without PSI", because: unavailableReason, in: "NoPressureInformationTests"))
    func doctorSaysMemoryPressureCanNotBeWatchedAndThatTheBudgetStillWorks() throws {
        let run = try withoutPressureInformation(["doctor"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let said = run.stdout.split(separator: "\n").filter { $0.hasPrefix("memory pressure: ") }
        #expect(said == ["memory pressure: not usable: \(Self.why); --suspended-memory still works"], "\(run.stdout)")
    }

    @Test(.skip("a kernel without PSI", because: unavailableReason, in: "NoPressureInformationTests"),
          arguments: Backend.usable(in: "NoPressureInformationTests"))
    func aRunAskedToWatchSaysWhyInOneLineAndTheBudgetStillReclaims(backend: Backend) throws {
        let log = temporary.file("events.log"), reportPath = temporary.file("report.json")
        let run = try withoutPressureInformation(
            ["--report", reportPath, "--freezer", backend.rawValue, "--reclaim-on-pressure", "--suspended-memory", "1K",
             "--window", "0.3", "--name", "worker", "--aware", "--", Supervise.worker("aware-worker.sh")],
            // Sent once the worker has said hello: one that had not yet read its events was
            // frozen at the end of the window and reclaimed before it logged the background.
            environment: ["WORKER_LOG": log], stdin: "wait active\nbackground\nwait not-running timeout=20s\nterminate\n")
        #expect(run.status == 0, "a reclaim is never a failure: \(run.stderr)")
        let said = run.stderr.split(separator: "\n").filter { $0.contains("memory pressure") }
        #expect(said.count == 1 && said.first?.hasSuffix("memory pressure is not watched (\(Self.why)): no memory warnings; "
                                                          + "--reclaim-on-pressure can't act") == true, "\(run.stderr)")

        let report = try #require((try? Data(contentsOf: URL(fileURLWithPath: reportPath)))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }, "no report: \(run.stderr)")
        let pressure = report["memory_pressure"] as? [String: Any] ?? [:]
        #expect(pressure["file"] is NSNull && pressure["not_watched"] as? String == Self.why, "\(pressure)")
        let child = (report["children"] as? [[String: Any]])?.first ?? [:]
        let runs = child["runs"] as? [[String: Any]] ?? []
        #expect(runs.count == 1 && (runs.first?["exit"] as? [String: Any])?["by"] as? String == "reclaim", "\(runs)")
        let notes = (child["timeline"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String == "note" ? $0["text"] as? String : nil }
        #expect(notes.contains { $0.hasPrefix("reclaimed: suspended children held ") && $0.contains("suspended-memory budget of 1 KiB") },
                "\(notes)")
        let events = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(events.contains { $0.hasPrefix("did-enter-background ") } && !events.contains { $0.hasPrefix("will-terminate") },
                "parked, then killed without an event: \(events)")
    }
}

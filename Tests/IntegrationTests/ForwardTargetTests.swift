import Foundation
import Testing
import SuperviseTestSupport

/// Who a forwarded signal reaches (docs/cli.md, "Who gets a forwarded signal"): the main process
/// by default, its process group or the whole tree when asked, both from a remapped signal and
/// from the `signal` command; and a suspended child gets it, from the same recipients, when
/// it is next thawed. On each freezer, with a tree of shells that count what they are sent.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ForwardTargetTests {
    let temporary = TemporaryDirectory()
    var directory: String { temporary.url.path }

    /// A main shell with a member of its process group and one that left it with `setsid`; each
    /// appends a line to DIR/ROLE.SIG for each HUP, USR1 and USR2 it is sent.
    func worker() throws -> [String] {
        let script = """
            #!/bin/sh
            dir=$1 role=$2
            exec >/dev/null 2>&1
            if [ -z "$role" ]; then
                "$0" "$dir" member &
                setsid "$0" "$dir" escaped &
                role=main
            fi
            for sig in HUP USR1 USR2; do trap "echo . >> '$dir/$role.$sig'" $sig; done
            trap 'exit 0' TERM
            echo $$ > "$dir/$role.ready"
            # It forks nothing from here on: a shell waiting for a vfork child that a stop caught
            # before its exec can't stop (it shows D, the stop pending), so a loop of sleeps
            # could leave a stopped group's member running. The sleep ignores what is counted.
            (trap '' HUP USR1 USR2; exec sleep 100000) &
            while kill -0 $! 2>/dev/null; do wait $!; done
            """
        let path = directory + "/counter.sh"
        try writeProgram(path, script)
        return [path, directory]
    }

    /// The pid of each process of the tree ("main", "member", "escaped"), once all are ready.
    func pids() -> [String: Int32] {
        var pids: [String: Int32] = [:]
        for role in ["main", "member", "escaped"] {
            let text = (try? String(contentsOfFile: "\(directory)/\(role).ready", encoding: .utf8)) ?? ""
            if let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) { pids[role] = pid }
        }
        return pids
    }

    /// How many of each signal each process was sent so far, by "ROLE.SIG".
    func counts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for role in ["main", "member", "escaped"] {
            for signal in ["HUP", "USR1", "USR2"] {
                let text = (try? String(contentsOfFile: "\(directory)/\(role).\(signal)", encoding: .utf8)) ?? ""
                if !text.isEmpty { counts["\(role).\(signal)"] = text.split(separator: "\n").count }
            }
        }
        return counts
    }

    /// Waits until the counts are `expected`, then a little longer, so that a signal that went
    /// too far has time to show; whether they are exactly `expected`.
    func settle(at expected: [String: Int]) -> Bool {
        guard eventually(timeout: 10, { counts() == expected }) else { return false }
        Thread.sleep(forTimeInterval: 0.3)
        return counts() == expected
    }

    @Test(arguments: Backend.usable(in: "ForwardTargetTests"))
    func eachTargetReachesExactlyItsProcesses(backend: Backend) throws {
        let supervise = try LiveSupervise(["--freezer", backend.rawValue, "--name", "w", "--window", "0",
                                           "--signal", "HUP=forward", "--signal", "USR1=forward-group",
                                           "--signal", "USR2=forward-tree", "--"] + (try worker()))
        defer { supervise.stop() }
        try #require(eventually(timeout: 20) { pids().count == 3 }, "the tree never started:\n\(supervise.log)")

        // Remapped signals sent to supervise.
        var expected: [String: Int] = ["main.HUP": 1]
        supervise.signal(SIGHUP)
        #expect(settle(at: expected), "HUP=forward: the main process only: \(counts())")
        supervise.signal(SIGUSR1)
        expected.merge(["main.USR1": 1, "member.USR1": 1]) { $1 }
        #expect(settle(at: expected), "USR1=forward-group: the process group, not the setsid one: \(counts())")
        supervise.signal(SIGUSR2)
        expected.merge(["main.USR2": 1, "member.USR2": 1, "escaped.USR2": 1]) { $1 }
        #expect(settle(at: expected), "USR2=forward-tree: every process: \(counts())")

        // The `signal` command: the main process unless told.
        supervise.send("signal w HUP")
        expected["main.HUP"] = 2
        #expect(settle(at: expected), "signal w HUP: the main process only: \(counts())")
        supervise.send("signal w HUP group")
        expected.merge(["main.HUP": 3, "member.HUP": 1]) { $1 }
        #expect(settle(at: expected), "signal w HUP group: \(counts())")
        supervise.send("signal w HUP tree")
        expected.merge(["main.HUP": 4, "member.HUP": 2, "escaped.HUP": 1]) { $1 }
        #expect(settle(at: expected), "signal w HUP tree: \(counts())")

        // Suspended: nothing arrives until the thaw, then each signal reaches its recipients.
        supervise.send("background")
        #expect(supervise.wait(for: "suspended") == "suspended", "\(supervise.log)")
        supervise.signal(SIGHUP)
        supervise.send("signal w USR1 group")
        supervise.signal(SIGUSR2)
        #expect(settle(at: expected), "a suspended tree runs no trap: \(counts())")
        supervise.send("foreground")
        #expect(supervise.wait(for: "active") == "active", "\(supervise.log)")
        expected.merge(["main.HUP": 5, "main.USR1": 2, "member.USR1": 2,
                        "main.USR2": 2, "member.USR2": 2, "escaped.USR2": 2]) { $1 }
        #expect(settle(at: expected), "each held signal reaches its recipients once thawed: \(counts())")
        #expect(supervise.terminate() == 0, "\(supervise.log)")
    }

    /// A SIGSTOP sent while the tree is frozen stops, once thawed, exactly the processes of its
    /// target: the `sigstop` freezer's SIGCONT discards it, and its thaw sends it again to the
    /// same target. (Not TSTP: the kernel drops it for the escaped one, an orphaned group.)
    @Test(arguments: Backend.usable(in: "ForwardTargetTests"))
    func aStopSentWhileSuspendedStopsItsTargetOnceThawed(backend: Backend) throws {
        let supervise = try LiveSupervise(["--freezer", backend.rawValue, "--name", "w", "--window", "0", "--"] + (try worker()))
        defer { supervise.stop() }
        try #require(eventually(timeout: 20) { pids().count == 3 }, "the tree never started:\n\(supervise.log)")
        let tree = pids()
        supervise.send("background")
        try #require(supervise.wait(for: "suspended") == "suspended", "\(supervise.log)")
        supervise.send(["signal w STOP group", "foreground"])
        #expect(supervise.wait(for: "active") == "active", "\(supervise.log)")
        let main = try #require(tree["main"]), member = try #require(tree["member"]), escaped = try #require(tree["escaped"])
        #expect(eventually { ProcessInspector.isStopped(main) && ProcessInspector.isStopped(member) },
                "the group is stopped once thawed: \(tree.mapValues { ProcessInspector.isStopped($0) })")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!ProcessInspector.isStopped(escaped), "the process that left the group runs")
        #expect(supervise.terminate() == 0, "terminate continues the stopped ones: \(supervise.log)")
    }

    /// Once the main process has exited, its pid may name another process: a signal for it or
    /// its group reaches nobody (the command is refused, a forward noted), the tree's rest still
    /// gets one sent to the tree.
    @Test func afterTheMainProcessExitedOnlyTheTreeIsReached() throws {
        let socket = directory + "/s"
        let left = directory + "/left.HUP"
        // The main process exits only once the one it leaves has its traps: else the supervisor's
        // SIGTERM to what is left behind could come first, and end it.
        let script = "(trap 'echo . >> \(left)' HUP; trap '' TERM; echo > \(directory)/left.ready; "
            + "while :; do sleep 0.05; done) & while [ ! -e \(directory)/left.ready ]; do sleep 0.01; done; exit 0"
        let supervise = try LiveSupervise(["--control", "none", "--socket", socket, "--name", "w", "--grace", "4",
                                           "--signal", "HUP=forward", "--", "sh", "-c", script])
        defer { supervise.stop() }
        try #require(eventually(timeout: 20) { FileManager.default.fileExists(atPath: directory + "/left.ready") })
        try #require(eventually(timeout: 20) { (try? Ctl.run(socket, ["status"]).stdout.contains("\"exited\"")) == true },
                     "\(supervise.log)")

        let refused = try Ctl.run(socket, ["signal", "w", "HUP"])
        #expect(refused.status == 2 && refused.stderr.contains(
            "w: cannot send SIGHUP to its main process: its main process has exited (the target tree reaches what is left)"),
                "\(refused.stderr)")
        supervise.signal(SIGHUP)
        #expect(eventually(timeout: 10) { supervise.log.contains("SIGHUP: forwarding it") }, "\(supervise.log)")
        #expect(try Ctl.run(socket, ["signal", "w", "HUP", "tree"]).status == 0)
        #expect(eventually { ((try? String(contentsOfFile: left, encoding: .utf8)) ?? "") == ".\n" },
                "the process left behind gets the one sent to the tree, only")
        // It ignores SIGTERM: killed now rather than at the end of the grace that kept it for the looks.
        #expect(try Ctl.run(socket, ["signal", "w", "KILL", "tree"]).status == 0)
        let run = supervise.finish()
        #expect(run.timeline("note").contains("SIGHUP not forwarded: its main process has exited"), "\(run.timeline("note"))")
        #expect(run.timeline("note").contains("sent SIGHUP to its tree (signal command)"), "\(run.timeline("note"))")
    }
}

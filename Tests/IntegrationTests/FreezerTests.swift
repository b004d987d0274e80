import Foundation
import Testing
import SuperviseTestSupport

/// Freezing for real: progress stops, whole trees, fds, and the idle loop.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct FreezerTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }

    func counterValue(_ path: String) -> Int {
        Int(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test(arguments: Backend.usable(in: "FreezerTests"))
    func frozenChildMakesNoProgressAndResumesWhenThawed(backend: Backend) throws {
        let counter = directory.appendingPathComponent("counter").path
        var frozenValues: [Int] = []
        var resumed = false
        let run = try Supervise.run(["--freezer", backend.rawValue, "--window", "0", "--freeze-timeout", "5",
                                     "--", Supervise.worker("counter.sh"), counter],
                                    stdin: "sleep 0.3\nbackground\nwait suspended\n") { process in
            // Once the kernel shows the child frozen, its counter must stand still.
            let child = SupervisedChild(backend: backend, supervisorPID: process.processIdentifier)
            #expect(child.waitFrozen(), "the kernel never showed the child frozen")
            frozenValues.append(counterValue(counter))
            // The point: a window in which the running counter would have moved (it writes every 10 ms or so).
            Thread.sleep(forTimeInterval: 0.5)
            frozenValues.append(counterValue(counter))
            kill(process.processIdentifier, SIGUSR2)
            let before = counterValue(counter)
            resumed = eventually(timeout: 5) { counterValue(counter) > before }
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(frozenValues.count == 2 && frozenValues[0] > 0 && frozenValues[0] == frozenValues[1],
                "no progress while suspended: \(frozenValues)")
        #expect(resumed, "progress again after foreground")
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func childGetsOnlyItsFiveDescriptorsAndTheProtocolEnvironment() throws {
        var fds: [String] = []
        var environment: [String] = []
        var childPID = ""
        _ = try Supervise.run(["--name", "envy", "--", "sleep", "30"]) { process in
            let children = "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children"
            #expect(eventually { !((try? String(contentsOfFile: children, encoding: .utf8)) ?? "").isEmpty }, "the supervisor started a child")
            childPID = ((try? String(contentsOfFile: children, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            // Look only once the child has exec'd: before that it is a copy of the supervisor, whose
            // environment may hold SUPERVISE_ variables too (EnvironmentTests sets them in this
            // test process, which the supervisor inherits when it starts meanwhile).
            #expect(eventually {
                (try? String(contentsOfFile: "/proc/\(childPID)/comm", encoding: .utf8)) == "sleep\n"
            }, "child \(childPID) exec'd sleep")
            // sleep opens and closes locale files as it starts: look once it sleeps. Its environment
            // too: exec names the process before it lays out the new stack, and until then
            // /proc/PID/environ reads empty (seen once under CI's load).
            #expect(eventually {
                (try? String(contentsOfFile: "/proc/\(childPID)/wchan", encoding: .utf8)) == "hrtimer_nanosleep"
            }, "child \(childPID) sleeps")
            let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(childPID)/environ"))) ?? Data()
            environment = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasPrefix("SUPERVISE_") }
            fds = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(childPID)/fd")) ?? [])
                .sorted { Int($0) ?? 0 < Int($1) ?? 0 }
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(fds == ["0", "1", "2", "3", "4"], "fds of child \(childPID)")
        #expect(Set(environment) == ["SUPERVISE_PROTOCOL=1", "SUPERVISE_EVENTS_FD=3", "SUPERVISE_REQUESTS_FD=4",
                                     "SUPERVISE_NAME=envy", "SUPERVISE_PID=\(childPID)"])
    }

    /// An idle supervisor sleeps in epoll_wait and never wakes: no context switch in 3 s.
    /// (`strace -c -f` shows the same; see docs/performance.md.)
    @Test(arguments: ["none", "stdin"])
    func idleSupervisorNeverWakesUp(control: String) throws {
        var before: [String: Int] = [:], after: [String: Int] = [:]
        var syscall = ""
        // With stdin control, the input is a pipe already at its end: that must not wake it either.
        _ = try Supervise.run(["--control", control, "--", "sleep", "30"]) { process in
            let pid = process.processIdentifier
            // Idle: the child has exec'd sleep and the supervisor is blocked in epoll_wait.
            let child = SupervisedChild(backend: .sigstop, supervisorPID: pid)
            #expect(eventually {
                let blockedIn = ProcessInspector.read("/proc/\(pid)/syscall") ?? ""
                return child.pid.map { ProcessInspector.commandLine($0) == "sleep 30" } == true
                    && (blockedIn.isEmpty || blockedIn.hasPrefix("232 ") || blockedIn.hasPrefix("281 "))
            })
            // Settled: no context switch for half a second. The launch's last wake-ups may come
            // after the child's exec (a cgroup.events notification is rate-limited to ~10 ms);
            // once idle, not one more.
            #expect(eventually(timeout: 10) {
                let settling = Self.contextSwitches(pid)
                Thread.sleep(forTimeInterval: 0.5)
                return settling == Self.contextSwitches(pid)
            }, "the supervisor never went idle after its launch")
            before = Self.contextSwitches(pid)
            // The point: 3 s in which an idle supervisor must not be woken.
            Thread.sleep(forTimeInterval: 3)
            after = Self.contextSwitches(pid)
            syscall = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? ""
            kill(pid, SIGTERM)
        }
        #expect(!before.isEmpty)
        #expect(before == after, "context switches while idle: \(before) -> \(after)")
        #expect(syscall.hasPrefix("232 ") || syscall.hasPrefix("281 ") || syscall.isEmpty,
                "blocked in epoll_wait (232) or epoll_pwait (281): \(syscall)")
    }

    static func contextSwitches(_ pid: Int32) -> [String: Int] {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        var result: [String: Int] = [:]
        for line in status.split(separator: "\n") where line.contains("ctxt_switches") {
            let parts = line.split(separator: ":")
            result[String(parts[0])] = Int(parts[1].trimmingCharacters(in: .whitespaces))
        }
        return result
    }
}

/// One test per freezer backend: skipped, with the reason, where the machine can't run it —
/// the lifecycle suites above then run without that backend.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct BackendAvailabilityTests {
    @Test(.skip("cgroup2", because: Backend.cgroup2.unavailableReason, in: "BackendAvailabilityTests"))
    func cgroup2BackendRunsHere() throws { try roundTrip(.cgroup2) }

    @Test(.skip("cgroup1", because: Backend.cgroup1.unavailableReason, in: "BackendAvailabilityTests"))
    func cgroup1BackendRunsHere() throws { try roundTrip(.cgroup1) }

    @Test func sigstopBackendRunsHere() throws { try roundTrip(.sigstop) }

    func roundTrip(_ backend: Backend) throws {
        let run = try Supervise.run(["--freezer", backend.rawValue, "--window", "0", "--", "sleep", "30"],
                                    stdin: "background\nwait suspended\nforeground\nwait active\nterminate\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.child["freezer"] as? String == backend.rawValue)
        #expect(run.timeline("state").contains("suspended"))
    }
}

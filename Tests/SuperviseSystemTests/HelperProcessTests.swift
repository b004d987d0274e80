import Glibc
import Testing
import SuperviseTestSupport
import SuperviseLifecycle
@testable import SuperviseSystem

/// A helper process (the picture's `supervise report`): its descriptors, signals and status,
/// and a bounded wait. Run with sh and sleep in place of this program.
@Suite(.timeLimit(.minutes(5))) struct HelperProcessTests {
    /// Runs `sh -c script` as the helper, `stdin` at fd 0 (/dev/null when not given).
    static func sh(_ script: String, stdin: Int32? = nil, timeout: Duration = .seconds(20)) -> HelperProcess.Outcome {
        let input = stdin ?? open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if stdin == nil { close(input) } }
        return HelperProcess.run(["sh", "-c", script], stdin: input, timeout: timeout, program: "/bin/sh")
    }

    /// A pipe's read end holding `text` (close-on-exec; small enough for the pipe's buffer).
    static func text(_ text: String) -> Int32 {
        var ends: [Int32] = [0, 0]
        _ = pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = text.withCString { write(ends[1], $0, strlen($0)) }
        close(ends[1])
        return ends[0]
    }

    @Test func itsExitStatusAndTheSignalThatEndedItAreSaid() {
        #expect(Self.sh("exit 3") == .ended(.exited(3)))
        #expect(Self.sh("exit 0") == .ended(.exited(0)))
        // The supervisor blocks the signals it reads from its signalfd; the helper starts with none blocked.
        var terminate = sigset_t(), before = sigset_t()
        sigemptyset(&terminate)
        sigaddset(&terminate, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &terminate, &before)
        // awk, unlike sh, keeps the mask it was given: it exits 1 when any signal is blocked or
        // ignored, but glibc's own 32 and 33 (SIGCANCEL, SIGSETXID), which no program may use.
        let mask = """
            /^SigBlk/ && $2 != "0000000000000000" { bad = 1 }
            /^SigIgn/ && !(substr($2, 1, 8) ~ /^0000000[01]$/ && substr($2, 9, 8) ~ /^[08]0000000$/) { bad = 1 }
            END { exit bad }
            """
        let program = Self.text(mask)
        #expect(HelperProcess.run(["awk", "-f", "/dev/stdin", "/proc/self/status"], stdin: program,
                                  timeout: .seconds(20), program: "/usr/bin/awk") == .ended(.exited(0)))
        close(program)
        #expect(Self.sh("kill -TERM $$; sleep 5") == .ended(.signaled(SIGTERM)))
        pthread_sigmask(SIG_SETMASK, &before, nil)
        #expect(HelperProcess.run(["x"], stdin: 0, timeout: .seconds(5), program: "/nonexistent/x")
                == .notStarted("no such file or directory"))
    }

    @Test func itReadsTheGivenDescriptorAndHasNoOther() throws {
        let temporary = TemporaryDirectory(prefix: "supervise-helper")
        defer { temporary.remove() }
        let path = temporary.file("in")
        let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(file >= 0)
        defer { close(file) }
        _ = "7\n".withCString { write(file, $0, 2) }
        // A descriptor without close-on-exec, as one inherited from whoever started the supervisor.
        let leaked = dup(file)
        defer { close(leaked) }
        #expect(Self.sh("read status < /proc/self/fd/0; [ -e /proc/$$/fd/\(leaked) ] && exit 99; exit $status",
                        stdin: file) == .ended(.exited(7)))
    }

    @Test func oneThatRunsPastItsTimeIsKilled() {
        let clock = ContinuousClock()
        let started = clock.now
        #expect(Self.sh("exec sleep 30", timeout: .milliseconds(300)) == .timedOut)
        #expect(clock.now - started < .seconds(10), "killed at its time, not waited for")
    }
}

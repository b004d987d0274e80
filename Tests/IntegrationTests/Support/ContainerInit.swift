import Foundation
import Testing
import SuperviseTestSupport

/// What runs as pid 1 of a new pid namespace (`unshare --pid --fork --mount-proc`), the way a
/// container runtime starts an image's entrypoint: `supervise` or, to compare, tini.
enum ContainerInit: CustomTestStringConvertible, Equatable {
    /// `supervise --control none --grace GRACE OPTIONS --`, as in a container that has no stdin to read.
    case supervise(grace: Double, options: [String] = [])
    /// `tini --`, what `docker run --init` runs.
    case tini

    static let tiniPath = "/usr/bin/tini"

    var testDescription: String {
        switch self {
        case .supervise: "supervise"
        case .tini: "tini"
        }
    }

    /// Why this init can't be run as pid 1 here, or `nil` when it can.
    var unavailableReason: String? {
        switch self {
        case .supervise: PIDNamespace.unavailableReason
        case .tini:
            FileManager.default.isExecutableFile(atPath: Self.tiniPath)
                ? PIDNamespace.unavailableReason : "tini is not installed (apt-get install tini; scripts/setup-debian.sh)"
        }
    }

    /// Both inits, less those this machine can't run; prints why each other one is skipped.
    static func usable(in suite: String) -> [ContainerInit] {
        SkipReason.runnable([.supervise(grace: 1), .tini], in: suite) { $0.unavailableReason }
    }

    var arguments: [String] {
        switch self {
        case .supervise(let grace, let options): [Supervise.binary, "--control", "none", "--grace", String(grace)] + options + ["--"]
        case .tini: [Self.tiniPath, "--"]
        }
    }

    /// The end of one run as pid 1: its exit status as the runtime sees it (`unshare` passes it on).
    struct Run {
        var status: Int32
        var stderr: String
        var elapsed: Double
    }

    /// Runs `command` under this init as pid 1 of a new pid namespace. `whileRunning` gets the init's
    /// pid as this test sees it (to signal it from outside, as a runtime does) and its output so far. After `timeout` s the
    /// namespace is killed (SIGKILL to its pid 1), as a runtime does at the end of its grace period,
    /// and `killedAtTimeout` says so.
    func run(_ command: [String], timeout: Double = 20,
             whileRunning: ((Int32, CapturedOutput) throws -> Void)? = nil) throws -> (run: Run, killedAtTimeout: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PIDNamespace.unshare)
        process.arguments = PIDNamespace.options + arguments + command
        process.standardInput = FileHandle.nullDevice
        let output = CapturedOutput(of: process)
        let start = Date()
        try Self.withNoSignalBlocked { try process.run() }
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        if let whileRunning {
            try whileRunning(try #require(Self.initPID(below: process.processIdentifier), "unshare started no pid 1"), output)
        }
        let killed = !eventually(timeout: timeout) { !process.isRunning }
        if killed, let initPID = Self.initPID(below: process.processIdentifier) { kill(initPID, SIGKILL) }
        process.waitUntilExit()
        output.expectEnd(of: "the pid-1 run \(command.joined(separator: " "))", timeout: 2)
        return (Run(status: process.terminationStatus, stderr: output.stderr, elapsed: Date().timeIntervalSince(start)), killed)
    }

    /// The pid 1 `unshare` forked, as this test sees it, once it is there.
    private static func initPID(below unshare: Int32) -> Int32? {
        var found: Int32?
        guard eventually({
            found = (ProcessInspector.read("/proc/\(unshare)/task/\(unshare)/children") ?? "").split(separator: " ").first.flatMap { Int32($0) }
            return found != nil
        }) else { return nil }
        return found
    }

    /// Runs `body` with no signal blocked on this thread: a process spawned from a test's thread
    /// inherits its mask (most signals are blocked there), and tini passes its own start-up mask on
    /// to its child, where a runtime gives pid 1 an empty one.
    static func withNoSignalBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t(), previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }
}

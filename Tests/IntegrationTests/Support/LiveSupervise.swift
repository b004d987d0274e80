import Foundation
import Testing

/// A `supervise` that keeps running while the test talks to it: command lines go to its stdin one at a
/// time and `status` answers come back from its stdout. With `inPIDNamespace` it runs as pid 1 of a new
/// pid namespace, with its own `/proc` (`unshare --pid --fork --mount-proc`).
final class LiveSupervise {
    /// `supervise`, or the `unshare` that forked it.
    let process = Process()
    private let inPIDNamespace: Bool
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private let outputData = LockedData(), errorData = LockedData()

    init(_ arguments: [String], inPIDNamespace: Bool = false) throws {
        self.inPIDNamespace = inPIDNamespace
        process.executableURL = URL(fileURLWithPath: inPIDNamespace ? PIDNamespace.unshare : Supervise.binary)
        process.arguments = (inPIDNamespace ? PIDNamespace.options + [Supervise.binary] : []) + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        output.fileHandleForReading.readabilityHandler = { [outputData] in outputData.append($0.availableData) }
        errors.fileHandleForReading.readabilityHandler = { [errorData] in errorData.append($0.availableData) }
        try process.run()
    }

    var stderr: String { errorData.string }

    /// The supervisor's pid as this test sees it: in a pid namespace, the process `unshare` forked.
    var supervisorPID: Int32? {
        guard inPIDNamespace else { return process.processIdentifier }
        let pid = process.processIdentifier
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    func send(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The first child's `status` once the commands sent before have run (a `wait` holds it back).
    func status(timeout: Double = 20) -> [String: Any]? {
        let seen = statusLines.count
        send("status")
        guard Supervise.eventually(timeout: timeout, { statusLines.count > seen }) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(statusLines[seen].utf8)) as? [String: Any]
    }

    /// Waits up to `timeout` seconds for it to exit on its own; its exit status, or `nil` if it did not.
    func exitStatus(timeout: Double = 20) -> Int32? {
        guard Supervise.eventually(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends `terminate` and waits for the exit; its exit status, or `nil` if it did not exit.
    func terminate(timeout: Double = 20) -> Int32? {
        send("terminate")
        return exitStatus(timeout: timeout)
    }

    /// Makes sure nothing outlives the test: `terminate`, then SIGKILL (the next run sweeps what that leaves).
    func stop() {
        guard process.isRunning, terminate(timeout: 10) == nil else { return }
        if let pid = supervisorPID { kill(pid, SIGKILL) }
        kill(process.processIdentifier, SIGKILL)
    }

    private var statusLines: [String] {
        outputData.string.split(separator: "\n").filter { $0.hasPrefix("{\"name\"") }.map(String.init)
    }
}

/// Running a command as pid 1 of a new pid namespace with `unshare`.
enum PIDNamespace {
    static let unshare = "/usr/bin/unshare"
    static let options = ["--pid", "--fork", "--mount-proc"]

    /// Why a new pid namespace can't be made here, or `nil` when it can.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: unshare) else { return "util-linux's unshare is not installed" }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: unshare)
        probe.arguments = options + ["true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "\(unshare) could not be run" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "unshare \(options.joined(separator: " ")) fails here (it needs root)"
    }()

    /// Why `backend` can't be run in and beside a pid namespace here, or `nil` when it can.
    static func unavailableReason(with backend: Backend) -> String? {
        backend.unavailableReason ?? unavailableReason
    }
}

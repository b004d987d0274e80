import Foundation
import Testing
import SuperviseTestSupport

/// A Debian bookworm root booted with systemd as pid 1 (`systemd-nspawn -b`), running
/// examples/systemd/supervise-worker.service as shipped, with drop-ins for a test's variations.
///
/// On this hybrid host nspawn needs a cgroup v2 directory of its own (made here, and the nspawn
/// process moved into it before it execs), `--keep-unit --register=no` (no systemd on the host to
/// register with) and `SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1` (the machine gets a pure cgroup v2
/// tree). No network (`--private-network`). The root is unpacked once and shared read-only
/// (`--volatile=overlay` keeps each boot's writes in memory); supervise (and the Swift runtime a
/// debug build links from /opt/swift), the worker, the unit and its drop-in folder are bound in.
/// Commands run in the machine through `nsenter` into its pid 1's namespaces.
final class SystemdMachine {
    static let packages = ["systemd", "systemd-sysv", "dbus", "libcap2"]
    static let nspawn = "/usr/bin/systemd-nspawn"
    static let unit = "supervise-worker"
    /// The host's cgroup v2 mount, where the machine's own cgroup is made.
    static let v2Mount = FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified/cgroup.procs")
        ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup"

    /// Why no machine can be booted here, or nil.
    static let unavailableReason: String? = {
        if getuid() != 0 { return "systemd-nspawn needs root" }
        if !FileManager.default.isExecutableFile(atPath: nspawn) {
            return "systemd-nspawn is not installed (systemd-container; scripts/setup-debian.sh installs it)"
        }
        if !FileManager.default.fileExists(atPath: v2Mount + "/cgroup.procs") { return "no cgroup v2 hierarchy for the machine's cgroup" }
        return DebianRoot.missingReason
    }()

    let files = TemporaryDirectory(prefix: "supervise-nspawn")
    let name = "sv" + UUID().uuidString.prefix(8).lowercased()
    var cgroup: String { Self.v2Mount + "/supervise-nspawn-" + name }
    private let process = Process()
    /// The machine's pid 1 (systemd), as the host sees it.
    private(set) var initPID: Int32 = 0

    /// Boots the machine with `worker` as /usr/local/bin/worker and `dropIns` (file name: text) for
    /// the unit, and waits until systemd says the system is running.
    init(worker: String, dropIns: [String: String] = [:]) throws {
        do {
            try boot(worker: worker, dropIns: dropIns)
        } catch {
            shutDown()
            throw error
        }
    }

    private func boot(worker: String, dropIns: [String: String]) throws {
        let root = try DebianRoot.unpacked("systemd", packages: Self.packages)
        try FileManager.default.createDirectory(atPath: files.file("dropins"), withIntermediateDirectories: true)
        try writeProgram(files.file("worker"), "#!/bin/sh\n" + worker + "\n")
        for (file, text) in dropIns { try text.write(toFile: files.file("dropins/" + file), atomically: true, encoding: .utf8) }
        let unitFile = DebianRoot.packageRoot + "/examples/systemd/\(Self.unit).service"
        try FileManager.default.createDirectory(atPath: cgroup, withIntermediateDirectories: false)

        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", cgroup, Self.nspawn, "--quiet",
                             "--directory", root, "--volatile=overlay", "--boot", "--keep-unit", "--register=no",
                             "--private-network", "--machine", name, "--console=pipe", "--bind-ro=/opt/swift",
                             "--bind-ro=\(Supervise.binary):/usr/local/bin/supervise",
                             "--bind-ro=\(files.file("worker")):/usr/local/bin/worker",
                             "--bind-ro=\(unitFile):/etc/systemd/system/\(Self.unit).service",
                             "--bind=\(files.file("dropins")):/etc/systemd/system/\(Self.unit).service.d"]
        process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"]
        process.standardInput = FileHandle.nullDevice
        let log = try emptyFileForWriting(files.file("nspawn.log"))
        process.standardOutput = log
        process.standardError = log
        try process.run()

        let nspawnPID = process.processIdentifier
        guard eventually(timeout: 60, interval: 0.05, { (try? self.initCommand(of: nspawnPID)) == "systemd" }) else {
            throw SetupFailure("systemd-nspawn did not start systemd within 60 s: \(contents(of: "nspawn.log"))")
        }
        // systemd's bus appears a moment after it starts: until then systemctl can't connect, or says offline.
        var running = (status: Int32(-1), output: "")
        let answered = eventually(timeout: 60, interval: 0.1) {
            running = (try? run(["systemctl", "is-system-running", "--wait"])) ?? running
            return !running.output.contains("Failed to connect to bus") && !running.output.hasPrefix("offline")
        }
        guard answered, running.output.hasPrefix("running") else {
            let failed = (try? run(["systemctl", "list-units", "--failed", "--no-pager"]).output) ?? ""
            throw SetupFailure("the machine's systemd is \(running.output) (not running): \(failed)")
        }
    }

    /// The name of the first child of `nspawnPID` (the machine's pid 1 once it has exec'd
    /// systemd), which becomes ``initPID``.
    private func initCommand(of nspawnPID: Int32) throws -> String {
        let children = try String(contentsOfFile: "/proc/\(nspawnPID)/task/\(nspawnPID)/children", encoding: .utf8)
        guard let first = children.split(separator: " ").first, let pid = Int32(first) else { return "" }
        initPID = pid
        return try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func contents(of file: String) -> String {
        (try? String(contentsOfFile: files.file(file), encoding: .utf8)) ?? ""
    }

    /// Runs `arguments` in the machine (at most 60 s): its status and output.
    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runToEnd(["/usr/bin/nsenter", "--target", "\(initPID)", "--all", "/usr/bin/timeout", "60"] + arguments)
    }

    /// `systemctl ARGUMENTS supervise-worker`.
    @discardableResult
    func systemctl(_ arguments: String...) throws -> (status: Int32, output: String) {
        try run(["systemctl", "--no-pager"] + arguments + [Self.unit])
    }

    /// The unit's property `name` (`systemctl show -P`).
    func property(_ name: String) throws -> String {
        try systemctl("show", "-P", name).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits (up to `timeout` seconds) until the unit's property `name` is `value`.
    func waitFor(_ name: String, _ value: String, timeout: Double = 30) -> Bool {
        eventually(timeout: timeout, interval: 0.1) { (try? property(name)) == value }
    }

    /// What supervise and systemd logged for the unit, without the journal's prefixes.
    func journal() -> String {
        (try? run(["journalctl", "--no-pager", "-o", "cat", "-u", Self.unit]).output) ?? "(the journal could not be read)"
    }

    /// Adds the drop-in `file` to the unit, and has systemd read it.
    func addDropIn(_ file: String, _ text: String) throws {
        try text.write(toFile: files.file("dropins/" + file), atomically: true, encoding: .utf8)
        try run(["systemctl", "daemon-reload"])
    }

    /// Powers the machine off (nspawn turns SIGTERM into a clean shutdown of its systemd), kills
    /// what is left when that takes over 20 s, and removes the machine's cgroups and files.
    func shutDown() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            if !eventually(timeout: 20, interval: 0.05, { !self.process.isRunning }) {
                try? "1".write(toFile: cgroup + "/cgroup.kill", atomically: false, encoding: .utf8)
                kill(process.processIdentifier, SIGKILL)
                if !eventually(timeout: 10, interval: 0.05, { !self.process.isRunning }) {
                    Issue.record("systemd-nspawn \(process.processIdentifier) still runs 10 s after SIGKILL")
                }
            }
        }
        // nspawn makes payload/… below its cgroup, and the same folder in the name=systemd hierarchy.
        for top in [cgroup, "/sys/fs/cgroup/systemd/supervise-nspawn-" + name] {
            removeCgroupTree(top)
        }
        files.remove()
    }

    /// Removes the cgroup `directory` and every cgroup below it, deepest first.
    private func removeCgroupTree(_ directory: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + entry, isDirectory: &isDirectory), isDirectory.boolValue {
                removeCgroupTree(directory + "/" + entry)
            }
        }
        rmdir(directory)
    }
}

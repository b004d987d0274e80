#if os(Linux)
import Glibc
import SystemPackage

/// Cleans up the cgroups that supervisors which died (SIGKILL, crash) left behind.
public enum StaleCgroupSweeper {
    /// Thaws, kills and removes every `supervise-PID` cgroup next to where this run makes its own
    /// (cgroup v2 and the v1 freezer hierarchy) whose supervisor is gone. Returns one log line per cgroup.
    public static func sweep() -> [String] {
        var lines: [String] = []
        for version in [CgroupVersion.v2, .v1Freezer] {
            guard case .success(let location) = CgroupSystem.locate(version) else { continue }
            for name in FileIO.subdirectories(of: location.directory) {
                guard name.hasPrefix(SupervisorCgroup.namePrefix),
                      let pid = Int32(name.dropFirst(SupervisorCgroup.namePrefix.count)) else { continue }
                let directory = location.directory + "/" + name
                guard let changed = FileIO.changeTime(of: directory),
                      !isLiveSupervisor(pid, cgroupChanged: changed) else { continue }
                lines.append(sweep(directory, version: version, pid: pid))
            }
        }
        return lines
    }

    /// Whether `pid` is a running supervisor that made a cgroup last changed at `cgroupChanged`
    /// (CLOCK_REALTIME ns). A pid reused by another program, or by a supervisor started after the
    /// cgroup was made, does not count. The name test accepts `supervise` and its test runner.
    static func isLiveSupervisor(_ pid: Int32, cgroupChanged: Int64) -> Bool {
        guard let name = ProcFS.commandName(pid), name.hasPrefix("supervise"),
              let started = ProcFS.startRealtime(pid) else { return false }
        let clockSlack: Int64 = 2_000_000_000
        return started <= cgroupChanged + clockSlack
    }

    /// Kills, thaws and removes one stale supervisor cgroup, and says what happened.
    private static func sweep(_ directory: String, version: CgroupVersion, pid: Int32) -> String {
        let found = CgroupTree.pids(directory).count
        let emptied = waitBriefly(upTo: .seconds(1)) {
            killAndThaw(directory, version: version)
            return CgroupTree.pids(directory).isEmpty
        }
        let left = CgroupTree.pids(directory)
        switch CgroupTree.remove(directory) {
        case .success:
            return "removed stale cgroup \(directory) of supervisor \(pid), which is gone (killed \(found) processes)"
        case .failure(let error):
            let why = emptied ? error.sentenceText : "\(left.count) processes would not die (\(left.map(String.init).joined(separator: " ")))"
            return "could not remove stale cgroup \(directory) of supervisor \(pid), which is gone: \(why); "
                + "kill them and rmdir it by hand"
        }
    }

    private static func killAndThaw(_ directory: String, version: CgroupVersion) {
        let cgroups = CgroupTree.directories(directory)
        switch version {
        case .v2:
            if case .failure = FileIO.write("1", toFile: directory + "/cgroup.kill") {
                CgroupTree.signalEvery(directory)
            }
            for cgroup in cgroups { _ = FileIO.write("0", toFile: cgroup + "/cgroup.freeze") }
        case .v1Freezer:
            CgroupTree.signalEvery(directory)
            for cgroup in cgroups { _ = FileIO.write("THAWED", toFile: cgroup + "/freezer.state") }
        }
    }
}
#endif

import SuperviseSystemCall

/// Cleans up the cgroups that supervisors which died (SIGKILL, crash) left behind.
public enum StaleCgroupSweeper {
    /// Thaws, kills and removes every `supervise-PID-TOKEN` cgroup next to where this run makes its own
    /// (cgroup v2 and the v1 freezer hierarchy) that no supervisor holds locked. A locked one, and any
    /// other name (an older build's `supervise-PID`), is never touched.
    ///
    /// Returns the log lines: one for all the cgroups removed, with their count (on a shared machine
    /// they are other users' supervisors', and a line each was noise), and one per cgroup that could
    /// not be removed, which needs a hand. A bare one (no process, no child cgroup) is not counted: it
    /// may be brand-new, its maker not locking it yet, and then that maker makes another.
    /// With `cgroupRoot` (`--cgroup-root`), the v2 ones are looked for there.
    public static func sweep(cgroupRoot: String? = nil) -> [String] {
        sweep([CgroupVersion.v2, .v1Freezer].compactMap { version in
            guard case .success(let location) = CgroupSystem.locate(version, root: cgroupRoot) else { return nil }
            return (version, location.directory)
        })
    }

    /// Sweeps the supervisor cgroups in each of `parents`, as `sweep()` does next to this run's own.
    static func sweep(_ parents: [(version: CgroupVersion, directory: String)],
                      system: any FreezerSystem = LinuxFreezerSystem()) -> [String] {
        let tree = CgroupTree(system)
        var lines: [String] = []
        var removed = 0, killed = 0
        for (version, parent) in parents {
            for name in system.subdirectoriesOrNone(of: parent) where SupervisorCgroupName.matches(name) {
                let directory = parent + "/" + name
                guard case .success(let lock?) = system.lockDirectory(directory) else { continue }
                defer { lock.release() }
                // The kernel refuses to remove a cgroup that holds a process or a child cgroup.
                guard lock.isOn(directory), case .failure = system.removeDirectory(directory) else { continue }
                switch sweep(directory, version: version, tree: tree) {
                case .success(let processes):
                    removed += 1
                    killed += processes
                case .failure(let line):
                    lines.append(line.text)
                }
            }
        }
        if removed > 0 {
            let cgroups = removed == 1 ? "cgroup" : "cgroups"
            lines.insert("removed \(removed) stale \(cgroups) of supervisors that are gone (killed \(killed) processes)", at: 0)
        }
        return lines
    }

    /// Why a stale cgroup was left, as a log line.
    struct LeftBehind: Error {
        let text: String
    }

    /// Kills, thaws and removes one stale supervisor cgroup: how many processes it killed, or why
    /// the cgroup was left.
    private static func sweep(_ directory: String, version: CgroupVersion, tree: CgroupTree) -> Result<Int, LeftBehind> {
        let found = tree.pids(directory).count
        let emptied = waitBriefly(upTo: .seconds(1)) {
            killAndThaw(directory, version: version, tree: tree)
            return tree.pids(directory).isEmpty
        }
        let left = tree.pids(directory)
        switch tree.remove(directory) {
        case .success:
            return .success(found)
        case .failure(let error):
            let why = emptied ? error.sentenceText : "\(left.count) processes would not die (\(left.map(String.init).joined(separator: " ")))"
            return .failure(LeftBehind(text: "could not remove stale cgroup \(directory), whose supervisor is gone: \(why); "
                + "kill them and rmdir it by hand"))
        }
    }

    private static func killAndThaw(_ directory: String, version: CgroupVersion, tree: CgroupTree) {
        let cgroups = tree.directories(directory)
        switch version {
        case .v2:
            if case .failure = tree.system.write("1", toFile: directory + "/cgroup.kill") {
                tree.signalEvery(directory)
            }
            for cgroup in cgroups { _ = tree.system.write("0", toFile: cgroup + "/cgroup.freeze") }
        case .v1Freezer:
            tree.signalEvery(directory)
            for cgroup in cgroups { _ = tree.system.write("THAWED", toFile: cgroup + "/freezer.state") }
        }
    }
}

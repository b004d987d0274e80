import SuperviseSystemCall
import Glibc
import SystemPackage

/// This supervisor's own cgroup, `supervise-PID-TOKEN`, locked for as long as it lives,
/// and the naming of the child cgroups made in it.
final class SupervisorCgroup {
    /// How many names to try: one is lost only when it exists already, or a sweep took the brand-new directory.
    private static let attempts = 8

    let version: CgroupVersion
    let directory: String
    private let system: any FreezerSystem
    /// Held until the directory is removed: while it is, no sweep touches the directory.
    private let lock: any DirectoryLock
    private var counter = 0

    /// Makes this supervisor's cgroup in `location` for a freezer: `location` must be writable, and
    /// the new cgroup must have the version's freeze file.
    static func forFreezer(in location: CgroupLocation, version: CgroupVersion,
                           system: any FreezerSystem) throws(FreezerUnusable) -> SupervisorCgroup {
        if case .failure(let error) = system.access(location.directory + "/cgroup.procs", W_OK) {
            throw FreezerUnusable("\(version.displayName) at \(location.directory) is not writable: "
                                  + "\(error.sentenceText) (cgroup.procs can't be written)", cause: FreezerUnusable.writeCause(error))
        }
        let cgroup = try SupervisorCgroup(in: location, version: version, system: system)
        guard case .success = system.access(cgroup.directory + "/" + version.freezeFile, F_OK) else {
            cgroup.remove()
            throw FreezerUnusable("\(version.displayName) at \(location.directory) has no \(version.freezeFile)"
                                  + version.freezeFileHint)
        }
        return cgroup
    }

    /// Creates a cgroup in `location` named by `names` (a fresh name each call) and locks it.
    ///
    /// A name already taken is never reused: the next one is tried. A sweep that lists the directory
    /// before it is locked judges it stale, locks it and removes it; then this one finds it locked,
    /// or gone, or the path naming another directory, and tries the next name too.
    init(in location: CgroupLocation, version: CgroupVersion, system: any FreezerSystem = LinuxFreezerSystem(),
         names: () -> String = { SupervisorCgroupName.random(pid: getpid()) }) throws(FreezerUnusable) {
        self.version = version
        self.system = system
        for _ in 0..<Self.attempts {
            let directory = location.directory + "/" + names()
            switch system.makeDirectory(directory) {
            case .success:
                break
            case .failure(.fileExists):
                continue
            case .failure(let error) where [.permissionDenied, .notPermitted, .readOnlyFileSystem].contains(error):
                throw FreezerUnusable("\(version.displayName) at \(location.directory) is not writable: \(error.sentenceText)",
                                      cause: FreezerUnusable.writeCause(error))
            case .failure(let error):
                throw FreezerUnusable("could not create \(directory): \(error.sentenceText)")
            }
            switch system.lockDirectory(directory) {
            case .success(let lock?) where lock.isOn(directory):
                self.directory = directory
                self.lock = lock
                return
            case .success(let lock):
                lock?.release()
            case .failure(.noSuchFileOrDirectory):
                continue
            case .failure(let error):
                _ = system.removeDirectory(directory)
                throw FreezerUnusable("could not lock \(directory): \(error.sentenceText)")
            }
        }
        throw FreezerUnusable("could not make a cgroup in \(location.directory): \(Self.attempts) new ones in a row "
                              + "were taken or removed by other supervisors")
    }

    /// Makes the cgroup directory for one child, `NAME.N`, and returns its path.
    func makeChildDirectory(for childName: String) throws(SupervisorError) -> String {
        let base = PortableName.sanitized(childName)
        while true {
            counter += 1
            let path = directory + "/" + base + "." + String(counter)
            switch system.makeDirectory(path) {
            case .success:
                return path
            case .failure(.fileExists):
                continue
            case .failure(let error):
                throw SupervisorError(.freezer, "could not create cgroup \(path) for child \(childName): \(error.sentenceText); "
                                      + "check that supervise may write there (root or a delegated cgroup)", errno: error.rawValue)
            }
        }
    }

    /// Removes the directory (it is empty by now), then drops the lock. One that can't be removed
    /// is left unlocked, for the next run's sweep.
    func remove() {
        _ = system.removeDirectory(directory)
        lock.release()
    }
}

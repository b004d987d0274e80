#if os(Linux)
import Glibc
import SystemPackage

/// This supervisor's own cgroup, `supervise-PID`, and the naming of the child cgroups made in it.
final class SupervisorCgroup {
    /// The directory name prefix that marks a supervisor's cgroup (the sweeper looks for it).
    static let namePrefix = "supervise-"

    let version: CgroupVersion
    let directory: String
    private var counter = 0

    /// Creates (or, made earlier by this same process, reuses) `supervise-PID` in `location`.
    init(in location: CgroupLocation, version: CgroupVersion) throws(FreezerUnusable) {
        self.version = version
        directory = location.directory + "/" + Self.namePrefix + String(getpid())
        switch FileIO.makeDirectory(directory) {
        case .success, .failure(.fileExists):
            break
        case .failure(let error) where [.permissionDenied, .notPermitted, .readOnlyFileSystem].contains(error):
            throw FreezerUnusable("\(version.displayName) at \(location.directory) is not writable: \(error.sentenceText)")
        case .failure(let error):
            throw FreezerUnusable("could not create \(directory): \(error.sentenceText)")
        }
    }

    /// Makes the cgroup directory for one child, `NAME.N`, and returns its path.
    func makeChildDirectory(for childName: String) throws(SupervisorError) -> String {
        let base = ChildName.sanitized(childName)
        while true {
            counter += 1
            let path = directory + "/" + base + "." + String(counter)
            switch FileIO.makeDirectory(path) {
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

    /// Removes `supervise-PID` once it is empty. Another freezer of this process may still use it: then it stays.
    func remove() {
        _ = FileIO.removeDirectory(directory)
    }
}
#endif

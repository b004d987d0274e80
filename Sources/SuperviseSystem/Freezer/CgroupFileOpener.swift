import SuperviseSystemCall
import SystemPackage

/// Opens the files of a child cgroup just made; on a failure, closes what it opened and
/// removes the directory again, so a unit that can't be made leaves nothing behind.
struct CgroupFileOpener {
    let directory: String
    let childName: String
    let system: any FreezerSystem
    private var opened: [Int32] = []

    init(directory: String, childName: String, system: any FreezerSystem) {
        self.directory = directory
        self.childName = childName
        self.system = system
    }

    /// Opens `file` of the cgroup with `flags`.
    mutating func open(_ file: String, _ flags: Int32) throws(SupervisorError) -> Int32 {
        switch system.open(directory + "/" + file, flags) {
        case .success(let fd):
            opened.append(fd)
            return fd
        case .failure(let error):
            throw undo("could not open \(directory)/\(file) for child \(childName): \(error.sentenceText)", error)
        }
    }

    /// Closes every file opened and removes the directory; the error to throw, saying `message`.
    func undo(_ message: String, _ error: Errno) -> SupervisorError {
        for fd in opened { system.close(fd) }
        _ = system.removeDirectory(directory)
        return SupervisorError(.freezer, message, errno: error.rawValue)
    }
}

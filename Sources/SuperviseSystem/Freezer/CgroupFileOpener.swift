import SuperviseSystemCall
import Glibc
import SystemPackage

/// Opens the files of a child cgroup just made, relative to the cgroup's open directory (one
/// walk of the long cgroup path instead of one a file: launching a thousand children opens
/// thousands); on a failure, closes what it opened and removes the directory again, so a unit
/// that can't be made leaves nothing behind.
struct CgroupFileOpener {
    let directory: String
    let childName: String
    let system: any FreezerSystem
    /// The cgroup directory, open (`O_DIRECTORY`); the unit keeps it or closes it.
    let directoryFD: Int32
    private var opened: [Int32] = []

    /// Opens the cgroup `directory`, or removes it and says why it can't be opened.
    init(directory: String, childName: String, system: any FreezerSystem) throws(SupervisorError) {
        self.directory = directory
        self.childName = childName
        self.system = system
        switch system.open(directory, O_RDONLY | O_DIRECTORY) {
        case .success(let fd):
            directoryFD = fd
        case .failure(let error):
            _ = system.removeDirectory(directory)
            throw SupervisorError(.freezer, "could not open \(directory) for child \(childName): \(error.sentenceText)",
                                  errno: error.rawValue)
        }
        opened.append(directoryFD)
    }

    /// Opens `file` of the cgroup with `flags`.
    mutating func open(_ file: String, _ flags: Int32) throws(SupervisorError) -> Int32 {
        switch system.open(file, in: directoryFD, flags) {
        case .success(let fd):
            opened.append(fd)
            return fd
        case .failure(let error):
            throw undo("could not open \(directory)/\(file) for child \(childName): \(error.sentenceText)", error)
        }
    }

    /// Closes every file opened, the directory's too, and removes the directory; the error to
    /// throw, saying `message`.
    func undo(_ message: String, _ error: Errno) -> SupervisorError {
        for fd in opened { system.close(fd) }
        _ = system.removeDirectory(directory)
        return SupervisorError(.freezer, message, errno: error.rawValue)
    }
}

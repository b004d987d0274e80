import SuperviseSystemCall
import Glibc
import SystemPackage
import _SuperviseCShims

/// Why a result file can't be used or written: one sentence without the path.
public struct ResultFileError: Error, Equatable, Sendable {
    public var message: String

    init(_ message: String) { self.message = message }
}

/// A file a run's results go to (`--report`, `--junit`, `--html`): checked when it is opened,
/// before anything is launched, and written once, whole or not at all.
///
/// The path's last component is never followed: a symbolic link there is refused, as is anything
/// but a regular file or nothing. The directory is opened once (`O_PATH`) and everything after
/// is done through that descriptor, so a directory renamed or swapped for a link meanwhile
/// changes nothing. The text goes to a new, locked file beside the destination
/// (``ResultTemporary``), is synced, and takes the destination's place only as
/// what was checked: with `RENAME_NOREPLACE` where nothing was, with `RENAME_EXCHANGE` over a
/// regular file, which is looked at once exchanged and put back if it is anything else. The
/// temporary file never outlives a failed write, and one a killed supervisor left is removed by
/// the next check of that destination. With an ``owner`` (supervise run by sudo), the
/// new file is given to that user by its descriptor (`fchown`) before it takes the place.
public final class ResultFile: Sendable {
    /// The path as given, for messages.
    public let path: String
    private let directory: Int32
    private let name: String
    private let directoryIdentity: FileIdentity
    /// The regular file at the path when it was checked, or nil when there was none.
    private let existing: FileIdentity?
    /// Who the written file is given to; nil leaves it the supervisor's.
    private let owner: ResultOwner?
    /// How many temporary files of this destination, left by supervisors that are gone, the check removed.
    public let removedLeftovers: Int

    /// Checks that a result file can be written at `path`: its directory exists and takes a new
    /// file (given to `owner`, if any), and nothing but a regular file is there. Then removes the
    /// temporary files of this destination whose writers are gone (``ResultTemporary``).
    public init(path: String, owner: ResultOwner? = nil) throws(ResultFileError) {
        self.path = path
        self.owner = owner
        guard !path.isEmpty else { throw ResultFileError("it is empty; give a file's path") }
        let slash = path.lastIndex(of: "/")
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let directoryPath = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard !name.isEmpty, name != ".", name != ".." else {
            throw ResultFileError("it names a directory; give a file's path")
        }
        let directory: Int32
        switch valueOrErrno({ open(directoryPath, _SUPERVISE_O_PATH | O_DIRECTORY | O_CLOEXEC) }) {
        case .success(let fd): directory = fd
        case .failure(let error):
            throw ResultFileError("its directory '\(directoryPath)' can't be used: \(error.sentenceText)")
        }
        self.directory = directory
        self.name = name
        do throws(ResultFileError) {
            guard let identity = FileIdentity(directory, "", flags: _SUPERVISE_AT_EMPTY_PATH) else {
                throw ResultFileError("its directory '\(directoryPath)' can't be looked at")
            }
            directoryIdentity = identity
            existing = try Self.checkedDestination(in: directory, name)
            try Self.probe(directory, name, directoryPath, owner: owner)
        } catch {
            Descriptor.close(directory)
            throw error
        }
        removedLeftovers = ResultTemporary.sweep(in: directory, for: name, owners: Self.sweptOwners(owner))
    }

    deinit { Descriptor.close(directory) }

    /// Whose temporary files a sweep may remove: this process's user's, and the owner's it gives them to.
    private static func sweptOwners(_ owner: ResultOwner?) -> [UInt32] {
        [CurrentProcess.effectiveUserID] + (owner.map { [$0.uid] } ?? [])
    }

    /// Whether `other` names the same file: the same name in the same directory, or a link to
    /// the same regular file.
    public func isSame(as other: ResultFile) -> Bool {
        (directoryIdentity == other.directoryIdentity && name == other.name)
            || (existing != nil && existing == other.existing)
    }

    /// Whether the file at `otherPath` (followed, as it is read) is this one.
    public func isSame(asFileAt otherPath: String) -> Bool {
        guard let existing else { return false }
        return FileIdentity(AT_FDCWD, otherPath, flags: 0) == existing
    }

    /// Writes `text` in place of the destination, whole or not at all (see the type).
    public func write(_ text: String) -> Result<Void, ResultFileError> {
        write { $0.append(text) }
    }

    /// Writes what `produce` appends to its stream in place of the destination, whole or not at
    /// all (see the type). The stream goes to the file in chunks of ``ResultStream/chunkSize``,
    /// so a large file never needs its size in memory.
    public func write(_ produce: (inout ResultStream) -> Void) -> Result<Void, ResultFileError> {
        writeKeepingOpen(produce).map { Descriptor.close($0) }
    }

    /// ``write(_:)-(ResultStream)``, then a descriptor open for reading on the file written (the
    /// caller closes it): what was written is read back without looking up its name again. The
    /// temporary file stays locked (``ResultTemporary``) until it has taken the destination's
    /// place or is gone.
    public func writeKeepingOpen(_ produce: (inout ResultStream) -> Void) -> Result<Int32, ResultFileError> {
        let temporary: ResultTemporary
        switch ResultTemporary.create(in: directory, for: name) {
        case .success(let made): temporary = made
        case .failure(let error): return .failure(ResultFileError(error.sentenceText))
        }
        let synced = Self.give(temporary.fd, to: owner)
            .flatMap { ResultStream.write(to: temporary.fd, produce) }
            .flatMap { valueOrErrno { fsync(temporary.fd) }.map { _ in () } }
        if case .failure(let error) = synced {
            unlinkat(directory, temporary.name, 0)  // while still locked: no sweep takes it meanwhile
            Descriptor.close(temporary.fd)
            return .failure(ResultFileError(error.sentenceText))
        }
        let replaced = replace(with: temporary.name)
        if case .failure(let error) = replaced {
            unlinkat(directory, temporary.name, 0)
            Descriptor.close(temporary.fd)
            return .failure(error)
        }
        return .success(temporary.fd)
    }

    /// Writes what `produce` streams to an unnamed 0600 file in the destination's directory
    /// (`O_TMPFILE`), and returns it open for reading and writing: scratch space on the
    /// destination's file system, of which nothing is left once the descriptor is closed, even
    /// after a SIGKILL. The destination itself is left alone.
    public func writeUnnamed(_ produce: (inout ResultStream) -> Void) -> Result<Int32, ResultFileError> {
        let fd: Int32
        switch valueOrErrno({ openat(directory, ".", _SUPERVISE_O_TMPFILE | O_RDWR | O_CLOEXEC, 0o600) }) {
        case .success(let opened): fd = opened
        case .failure(let error): return .failure(ResultFileError("cannot make an unnamed file beside it: \(error.sentenceText)"))
        }
        if case .failure(let error) = ResultStream.write(to: fd, produce) {
            Descriptor.close(fd)
            return .failure(ResultFileError(error.sentenceText))
        }
        return .success(fd)
    }

    /// Puts the written file `temporary` in the destination's place if the destination is still
    /// nothing or a regular file. On success nothing is left under `temporary`.
    private func replace(with temporary: String) -> Result<Void, ResultFileError> {
        var status = stat()
        switch valueOrErrno({ fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) }) {
        case .failure(.noSuchFileOrDirectory):
            switch valueOrErrno({ _supervise_renameat2(directory, temporary, directory, name, _SUPERVISE_RENAME_NOREPLACE) }) {
            case .success: return .success(())
            case .failure(.invalidArgument): return plainRename(temporary)
            case .failure(.fileExists): return .failure(ResultFileError("something was put there while it was written"))
            case .failure(let error): return .failure(ResultFileError(error.sentenceText))
            }
        case .failure(let error):
            return .failure(ResultFileError(error.sentenceText))
        case .success where status.st_mode & S_IFMT != S_IFREG:
            return .failure(ResultFileError("it is now \(FileIdentity.kind(status.st_mode)), not a regular file"))
        case .success:
            switch valueOrErrno({ _supervise_renameat2(directory, temporary, directory, name, _SUPERVISE_RENAME_EXCHANGE) }) {
            case .success: break
            case .failure(.invalidArgument): return plainRename(temporary)
            case .failure(let error): return .failure(ResultFileError(error.sentenceText))
            }
            // `temporary` now names what was at the destination: a regular file, unless it was
            // swapped since the look above. Anything else is put back as it was.
            var swapped = stat()
            var isRegular = false
            if case .success = valueOrErrno({ fstatat(directory, temporary, &swapped, AT_SYMLINK_NOFOLLOW) }) {
                isRegular = swapped.st_mode & S_IFMT == S_IFREG
            }
            guard isRegular else {
                _supervise_renameat2(directory, temporary, directory, name, _SUPERVISE_RENAME_EXCHANGE)
                return .failure(ResultFileError("it was replaced by \(FileIdentity.kind(swapped.st_mode)) while it was written"))
            }
            unlinkat(directory, temporary, 0)
            return .success(())
        }
    }

    /// A file system without `renameat2`'s flags (EINVAL): the look just before is all there is.
    private func plainRename(_ temporary: String) -> Result<Void, ResultFileError> {
        valueOrErrno({ renameat(directory, temporary, directory, name) }).map { _ in () }
            .mapError { ResultFileError($0.sentenceText) }
    }

    /// The regular file at `name`, nil when there is nothing; throws for anything else.
    private static func checkedDestination(in directory: Int32, _ name: String) throws(ResultFileError) -> FileIdentity? {
        var status = stat()
        switch valueOrErrno({ fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) }) {
        case .failure(.noSuchFileOrDirectory): return nil
        case .failure(let error): throw ResultFileError(error.sentenceText)
        case .success: break
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return FileIdentity(status)
        case S_IFLNK:
            throw ResultFileError("it is a symbolic link; give the path of the file itself (a result file "
                + "never follows or replaces a link)")
        case S_IFDIR:
            throw ResultFileError("it is a directory; give a file's path")
        default:
            throw ResultFileError("it is \(FileIdentity.kind(status.st_mode)), not a regular file; give the path "
                + "of a regular file, or of one to create")
        }
    }

    /// Makes and removes a file beside the destination: the directory takes a new file, and it
    /// can be given to `owner`.
    private static func probe(_ directory: Int32, _ name: String, _ directoryPath: String,
                              owner: ResultOwner?) throws(ResultFileError) {
        let made: ResultTemporary
        switch ResultTemporary.create(in: directory, for: name) {
        case .success(let file): made = file
        case .failure(let error):
            throw ResultFileError("cannot create a file in '\(directoryPath)': \(error.sentenceText)")
        }
        let given = give(made.fd, to: owner)
        unlinkat(directory, made.name, 0)
        Descriptor.close(made.fd)
        if case .failure(let error) = given, let owner {
            throw ResultFileError("cannot give a file in '\(directoryPath)' to uid \(owner.uid) (SUDO_UID), "
                + "gid \(owner.gid) (SUDO_GID): \(error.sentenceText)")
        }
    }

    /// Gives the open file `fd` to `owner` (nothing to do without one): by the descriptor, never by a name.
    private static func give(_ fd: Int32, to owner: ResultOwner?) -> Result<Void, Errno> {
        guard let owner else { return .success(()) }
        return valueOrErrno { fchown(fd, owner.uid, owner.gid) }.map { _ in () }
    }
}

/// A file as the kernel knows it: its device and inode.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The identity of `path` relative to `directory` (`fstatat` with `flags`), nil when it can't be looked at.
    init?(_ directory: Int32, _ path: String, flags: Int32) {
        var status = stat()
        guard case .success = valueOrErrno({ fstatat(directory, path, &status, flags) }) else { return nil }
        self.init(status)
    }

    /// "a character device", "a FIFO", … for a file's `st_mode`.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }
}

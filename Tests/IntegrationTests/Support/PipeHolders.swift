import Foundation

/// Who holds a pipe: for a test whose output never ended, the process that kept it open.
enum PipeHolders {
    /// The `pipe:[INODE]` name of the pipe `handle` is an end of.
    static func name(of handle: FileHandle) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(handle.fileDescriptor)")
    }

    /// The processes other than this one that hold an end of the pipes `names`, as `pid (command)`.
    static func describe(_ names: [String]) -> String {
        let me = getpid()
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
        let holding = pids.filter { pid in
            pid != me && ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")).map(names.contains) ?? false
            }
        }
        return holding.isEmpty ? "no other process" : holding.map { "\($0) (\(ProcessInspector.commandLine($0)))" }.joined(separator: ", ")
    }
}

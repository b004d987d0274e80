import Glibc
import SystemPackage
import _SuperviseCShims

/// A failed spawn as the C shim reports it (the step and its errno), turned into the user's error.
struct SpawnFailure {
    var step: Int32
    var errno: Int32
    var request: SpawnRequest

    var error: SupervisorError {
        let command = request.arguments.first ?? ""
        // Capitalised after the colon ("cannot run 'x': No such file or directory"), as a shell says it.
        let reason = Errno(rawValue: errno).description
        switch step {
        case _SUPERVISE_STEP_EXEC where Self.outOfResources.contains(errno):
            // The command is fine; the system lacks the memory, processes or descriptors to run it.
            return SupervisorError(.system, "cannot start '\(command)': exec failed: \(reason)", errno: errno)
        case _SUPERVISE_STEP_EXEC:
            let status: Int32 = errno == ENOENT || errno == ENOTDIR ? 127 : 126
            return SupervisorError(
                .spawn(status: status),
                "cannot run '\(command)': \(reason)\(execAdvice(command: command)) (exit \(status))",
                errno: errno)
        case _SUPERVISE_STEP_WORKING_DIRECTORY:
            return SupervisorError(
                .spawn(status: 126),
                "cannot run '\(command)': cannot change to directory "
                    + "'\(request.workingDirectory ?? "")': \(reason); fix its cwd (exit 126)",
                errno: errno)
        default:
            return SupervisorError(
                .system,
                "cannot start '\(command)': \(action) failed: \(reason)",
                errno: errno)
        }
    }

    /// The errnos of an exec that say nothing about the command: the supervisor's failure (125).
    private static let outOfResources: Set<Int32> = [EAGAIN, ENOMEM, ENFILE, EMFILE]

    /// What the user can do about an exec failure, after a "; ", or nothing.
    private func execAdvice(command: String) -> String {
        switch errno {
        case ENOENT, ENOTDIR:
            if command.contains("/") {
                "; check the path"
            } else if command.hasPrefix("-") {
                // `supervise -- --window 2 ./worker`: everything after `--` is the command.
                "; supervise's options go before '--', as in 'supervise --window 2 -- ./worker'"
            } else {
                "; check the name and PATH"
            }
        case EACCES, EPERM:
            if let uid = request.privileges.identity?.uid {
                "; make it executable (chmod +x) by uid \(uid), in directories it may enter, "
                    + "on a filesystem not mounted noexec"
            } else {
                "; make it executable (chmod +x) on a filesystem not mounted noexec"
            }
        case ENOEXEC:
            "; give it a #! line, or run it with sh"
        default:
            ""
        }
    }

    /// The setup step of the supervisor's own that failed, for the message.
    private var action: String {
        switch step {
        case _SUPERVISE_STEP_PIPE: "creating its exec-status pipe"
        case _SUPERVISE_STEP_FORK: "fork"
        case _SUPERVISE_STEP_PROCESS_GROUP: "making its process group"
        case _SUPERVISE_STEP_PARENT_DEATH_SIGNAL: "setting its parent-death signal"
        case _SUPERVISE_STEP_CGROUP: "placing it in its cgroup"
        case _SUPERVISE_STEP_DESCRIPTORS: "giving it its descriptors"
        case _SUPERVISE_STEP_TERMINAL: "giving it the terminal"
        case _SUPERVISE_STEP_OPEN_FILES_LIMIT: "restoring its open-files limit"
        case _SUPERVISE_STEP_SIGNALS: "resetting its signals"
        case _SUPERVISE_STEP_SESSION: "making its session (setsid)"
        case _SUPERVISE_STEP_GROUPS: "setting its supplementary groups (setgroups)"
        case _SUPERVISE_STEP_GID: "switching to gid \(request.privileges.identity?.gid ?? 0) (setresgid)"
        case _SUPERVISE_STEP_BOUNDING_SET: "dropping its capability bounding set (needs CAP_SETPCAP)"
        case _SUPERVISE_STEP_KEEP_CAPABILITIES: "keeping its capabilities across the uid change (PR_SET_KEEPCAPS)"
        case _SUPERVISE_STEP_UID: "switching to uid \(request.privileges.identity?.uid ?? 0) (setresuid)"
        case _SUPERVISE_STEP_CAPABILITIES: "setting its capabilities (capset)"
        case _SUPERVISE_STEP_AMBIENT: "raising its ambient capabilities"
        case _SUPERVISE_STEP_NO_NEW_PRIVILEGES: "setting no-new-privileges"
        default: "step \(step)"
        }
    }
}

import Glibc
import _SuperviseCShims

/// Starts children: fork and exec through the C shim, with the protocol descriptors at 3 and 4.
///
/// The child gets its own process group (a session of its own when it runs as another user),
/// the terminal on fd 0 as its foreground group when the request takes it (a failed spawn gives it back),
/// SIGKILL as its parent-death signal (the signal follows the *thread* that spawned it: call
/// `spawn` from a thread that lives as long as the supervisor),
/// the cgroup of `cgroupProcsFD` before it runs any code of its own, exactly fds 0-4, every
/// signal at its default disposition but the request's ignored ones, an empty signal mask, and
/// the request's privileges.
public enum Spawner {
    /// Starts the child; returns its pid (which is also its process group id).
    ///
    /// Returns once the exec succeeded. When it failed, the forked child has been reaped and the
    /// error is ``SupervisorError/Code/spawn(status:)`` with 127 (not found) or 126 (not
    /// executable, or the working directory is unusable), or ``SupervisorError/Code/system`` when
    /// the supervisor could not set the child up.
    public static func spawn(_ request: SpawnRequest) throws(SupervisorError) -> Int32 {
        guard let command = request.arguments.first else {
            throw SupervisorError(.spawn(status: 127), "no command to run; give one after --")
        }
        try checkNoNULBytes(request, command: command)

        var environment = request.environment
        // Where in envp the child writes its pid: after "NAME=", over zeros with room for any pid.
        let pidValue = request.pidVariable.map { name in
            environment.removeAll { $0.hasPrefix(name + "=") }
            environment.append(name + "=" + String(repeating: "0", count: 20))
            return (entry: environment.count - 1, offset: name.utf8.count + 1)
        }
        let argv = CStringArray(request.arguments)
        let envp = CStringArray(environment)
        let searchPath = searchPath(in: request.environment)

        var pid: pid_t = 0
        var failedStep: Int32 = 0
        let foregroundBefore = request.takeTerminal ? ControllingTerminal.foregroundGroup() : nil
        let privileges = request.privileges
        let groups = privileges.identity?.groups ?? []
        let error = searchPath.withCString { searchPath in
            groups.withUnsafeBufferPointer { groups in
                withCredentials(privileges, groups: groups) { credentials in
                    withOptionalCString(request.workingDirectory) { workingDirectory in
                        var attributes = _supervise_spawn_attributes(
                            file: argv.pointers[0]!,
                            argv: argv.pointers,
                            envp: envp.pointers,
                            search_path: searchPath,
                            pid_value: pidValue.map { envp.pointers[$0.entry]! + $0.offset },
                            working_directory: workingDirectory,
                            stdin_fd: request.stdin,
                            stdout_fd: request.stdout,
                            stderr_fd: request.stderr,
                            events_fd: request.eventsFD,
                            requests_fd: request.requestsFD,
                            cgroup_directory_fd: request.cgroupDirectoryFD ?? -1,
                            cgroup_procs_fd: request.cgroupProcsFD ?? -1,
                            take_terminal: request.takeTerminal ? 1 : 0,
                            set_open_files_limit: request.openFilesLimit == nil ? 0 : 1,
                            open_files_soft: request.openFilesLimit?.soft ?? 0,
                            open_files_hard: request.openFilesLimit?.hard ?? 0,
                            credentials: credentials,
                            new_session: privileges.identity == nil ? 0 : 1,
                            ignored_signals: request.ignoredSignals.reduce(0) { $0 | 1 << UInt64($1 - 1) })
                        return _supervise_spawn(&attributes, &pid, &failedStep)
                    }
                }
            }
        }
        guard error == 0 else {
            // A child that took the terminal and then failed leaves it where it was: with a
            // group that no longer runs, the shell or script behind the supervisor would be stopped.
            if let foregroundBefore, ControllingTerminal.foregroundGroup() != foregroundBefore {
                ControllingTerminal.setForegroundGroup(foregroundBefore)
            }
            throw SpawnFailure(step: failedStep, errno: error, request: request).error
        }
        return pid
    }

    /// The `PATH` a command without `/` is looked up on: the child's, else the supervisor's,
    /// else the C library's default.
    private static func searchPath(in environment: [String]) -> String {
        if let entry = environment.first(where: { $0.hasPrefix("PATH=") }) {
            return String(entry.dropFirst("PATH=".count))
        }
        if let inherited = getenv("PATH") {
            return String(cString: inherited)
        }
        return "/bin:/usr/bin"
    }

    /// The credentials `privileges` gives the child, or nil when it keeps the supervisor's.
    private static func withCredentials<R>(
        _ privileges: ChildPrivileges, groups: UnsafeBufferPointer<UInt32>,
        _ body: (UnsafePointer<_supervise_credentials>?) -> R
    ) -> R {
        guard privileges.isConfined else { return body(nil) }
        let identity = privileges.identity
        var credentials = _supervise_credentials(
            change_identity: identity == nil ? 0 : 1,
            uid: identity?.uid ?? 0,
            gid: identity?.gid ?? 0,
            groups: groups.baseAddress,
            group_count: Int32(groups.count),
            capabilities: privileges.grantedCapabilities.mask,
            last_capability: CapabilitySet.lastKnown,
            no_new_privileges: privileges.allowsNewPrivileges ? 0 : 1)
        return body(&credentials)
    }

    /// C strings end at the first NUL: a string with one inside would reach the child cut short.
    private static func checkNoNULBytes(_ request: SpawnRequest, command: String) throws(SupervisorError) {
        let strings = request.arguments + request.environment + [request.workingDirectory ?? ""]
        if strings.contains(where: { $0.utf8.contains(0) }) {
            throw SupervisorError(
                .spawn(status: 126),
                "cannot run '\(command)': an argument, environment variable or the "
                    + "working directory contains a NUL byte; remove it (exit 126)")
        }
    }

    private static func withOptionalCString<R>(
        _ string: String?, _ body: (UnsafePointer<CChar>?) -> R
    ) -> R {
        guard let string else { return body(nil) }
        return string.withCString(body)
    }
}

import Glibc

/// The channels `supervise` describes in the environment of the process it starts.
struct SupervisorEnvironment {
    let eventsFD: Int32
    let requestsFD: Int32
    let name: String?

    private static let variables = [
        "SUPERVISE_PROTOCOL", "SUPERVISE_EVENTS_FD", "SUPERVISE_REQUESTS_FD", "SUPERVISE_NAME", "SUPERVISE_PID",
    ]

    /// Takes the channels when they are meant for this process: `SUPERVISE_PID` is its pid
    /// and `SUPERVISE_PROTOCOL` is 1. Then it removes every `SUPERVISE_*` variable from the
    /// environment, so sub-processes never see them. Returns `nil` (and leaves the
    /// environment alone) when the variables are absent or meant for another process; in the
    /// second case `notice` says so, once: descriptors 3 and 4 of this process are not the
    /// channels, so the worker runs unsupervised, typically because `supervise` started a
    /// launcher (`swift run`, a shell) that started this process.
    ///
    /// Changes the environment: call it before starting threads that read it.
    static func take(notice: OnceNotice = .foreignChannels) -> SupervisorEnvironment? {
        guard let text = variable("SUPERVISE_PID") else { return nil }
        guard let pid = pid_t(text), pid == getpid() else {
            notice.say(
                "SuperviseClient: SUPERVISE_PID is \(text) but this process is \(getpid()): the channels are "
                    + "another process's, so this one runs unsupervised; run the executable itself under supervise, "
                    + "not through `swift run` or a shell (docs/client.md)")
            return nil
        }
        let speaksVersion1 = variable("SUPERVISE_PROTOCOL") == "1"
        let eventsFD = variable("SUPERVISE_EVENTS_FD").map { Int32($0) } ?? 3
        let requestsFD = variable("SUPERVISE_REQUESTS_FD").map { Int32($0) } ?? 4
        let name = variable("SUPERVISE_NAME")
        for variable in variables { unsetenv(variable) }
        guard speaksVersion1, let eventsFD, let requestsFD, isOpen(eventsFD), isOpen(requestsFD) else { return nil }
        return SupervisorEnvironment(eventsFD: eventsFD, requestsFD: requestsFD, name: name)
    }

    private static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    private static func isOpen(_ fd: Int32) -> Bool {
        fd >= 0 && fcntl(fd, F_GETFD) != -1
    }
}

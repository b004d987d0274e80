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
    /// environment alone) when the variables are absent or meant for another process.
    ///
    /// Changes the environment: call it before starting threads that read it.
    static func take() -> SupervisorEnvironment? {
        guard let pid = variable("SUPERVISE_PID").flatMap({ pid_t($0) }), pid == getpid() else { return nil }
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

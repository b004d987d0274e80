import Testing
import SuperviseProtocol
@testable import SuperviseLifecycle

/// The environment a child is launched with: the supervisor's, the child's own, the protocol's.
@Suite(.timeLimit(.minutes(5))) struct ChildEnvironmentTests {
    @Test func theSupervisorsVariablesThenTheChildsOwnSortedThenTheProtocols() {
        let variables = RunCore.environment(of: "web", own: ["PORT": "8080", "MODE": "fast"],
                                            inherited: ["PATH=/usr/bin", "HOME=/root"])
        #expect(variables == ["PATH=/usr/bin", "HOME=/root", "MODE=fast", "PORT=8080",
                              "SUPERVISE_PROTOCOL=\(protocolVersion)", "SUPERVISE_EVENTS_FD=3", "SUPERVISE_REQUESTS_FD=4",
                              "SUPERVISE_NAME=web"])
    }

    @Test func theChildsOwnVariableReplacesTheInheritedOne() {
        let variables = RunCore.environment(of: "web", own: ["PORT": "8080"], inherited: ["PORT=80", "PORTS=1", "X="])
        #expect(variables.prefix(3) == ["PORTS=1", "X=", "PORT=8080"])
    }

    /// A supervisor under another (or under systemd) does not pass its own protocol variables or
    /// its service manager's socket on: a child answers only to its own supervisor.
    @Test func theProtocolsAndTheServiceManagersVariablesAreNeverInherited() {
        let variables = RunCore.environment(of: "inner", own: [:], inherited: [
            "SUPERVISE_NAME=outer", "SUPERVISE_EVENTS_FD=7", "NOTIFY_SOCKET=/run/systemd/notify", "NOTIFY_SOCKETS=kept",
        ])
        #expect(variables == ["NOTIFY_SOCKETS=kept", "SUPERVISE_PROTOCOL=\(protocolVersion)", "SUPERVISE_EVENTS_FD=3",
                              "SUPERVISE_REQUESTS_FD=4", "SUPERVISE_NAME=inner"])
    }
}

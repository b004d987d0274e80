import Testing
@testable import SuperviseShell

/// `supervise ctl status --format table`: what people read of the status lines.
@Suite(.timeLimit(.minutes(5))) struct StatusTableTests {
    @Test func aChildStoppedByASignalSaysSoWithItsState() {
        let table = StatusTable.render([
            #"{"name":"w","pid":7,"state":"active","stopped":"SIGTTIN","aware":false,"freezer":"sigstop","cgroup":null,"tasks":[],"scheduled":["sync","compact"]}"#,
            #"{"name":"x","pid":8,"state":"active","stopped":null,"aware":false,"freezer":"sigstop","cgroup":null,"tasks":[]}"#,
        ])
        let rows = table.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(rows == ["NAME STATE PID AWARE FREEZER TASKS SCHEDULED", "w active (stopped: SIGTTIN) 7 no sigstop 0 2",
                         "x active 8 no sigstop 0 -"], "\(table)")
    }
}

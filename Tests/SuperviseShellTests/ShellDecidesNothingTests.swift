import Foundation
import Testing

/// The shell decides nothing of the run (docs/architecture.md, "The run core"): the facts the
/// run's rules read reach ``RunCore`` or a child's core, and no line of the supervisor's own code
/// reads one to decide by it.
@Suite(.timeLimit(.minutes(5))) struct ShellDecidesNothingTests {
    static let shell = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/SuperviseShell")

    /// What only a rule reads: a child's pending restart or order to terminate, the options the
    /// run's rules take, a violation kill, who a signal reaches, what a mistake does, the
    /// terminating signals counted, the facts behind the exit status, which children a stop of
    /// the job stops (a child with processes, in a state that runs), and which suspended children
    /// the memory budget reclaims.
    static let ruleFacts = [
        "restartPending", "toldToTerminate", "keepRunning", "violationStatus", "freezerUnavailableStatus",
        "killedForViolation", ".recipients(", "mistakes ==", "terminationSignals", "outcome.count(",
        "outcome.supervisorFailed", "outcome.violationKill", "outcome.scriptStepFailed",
        "stopsWithJob", "hasProcesses", "suspendedMemory", "ReclaimPlan.",
    ]

    /// The lines of `source`, comments aside, that read a rule's fact.
    static func decisions(in source: String) -> [String] {
        source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { line in !line.hasPrefix("//") && ruleFacts.contains { line.contains($0) } }
    }

    /// The supervisor, its children and the control server: every file that once decided for the run.
    static func shellFiles() throws -> [URL] {
        let supervisor = shell.appendingPathComponent("Supervisor")
        let names = try FileManager.default.contentsOfDirectory(atPath: supervisor.path).filter {
            $0 == "Supervisor.swift" || $0.hasPrefix("Supervisor+") || $0.hasPrefix("SupervisedChild")
        }
        return names.sorted().map { supervisor.appendingPathComponent($0) }
            + [shell.appendingPathComponent("Control/ControlServer.swift")]
    }

    @Test func noLineOfTheShellReadsAFactARuleDecidesBy() throws {
        let files = try Self.shellFiles()
        #expect(files.count > 10, "the shell's files were found: \(files.map(\.lastPathComponent))")
        var found: [String] = []
        for file in files {
            let source = try String(contentsOf: file, encoding: .utf8)
            found += Self.decisions(in: source).map { "\(file.lastPathComponent): \($0)" }
        }
        #expect(found == [])
    }

    @Test func aLineThatReadsARulesFactIsFoundAndACommentIsNot() {
        let source = """
            if child.status.restartPending { start(child, at: now) }
            // restartPending, in a comment
            perform(core.handle(.resultFileFailed))
            """
        #expect(Self.decisions(in: source) == ["if child.status.restartPending { start(child, at: now) }"])
    }

    /// The shell looks at an exited child's tree only when a core asks (``RunAction/checkTreeEmpty(child:)``,
    /// ``LifecycleAction/checkTreeEmpty``): one line hands a core `treeEmptied`, after that look.
    @Test func aTreeIsLookedAtOnlyWhenACoreAsks() throws {
        var found: [String] = []
        for file in try Self.shellFiles() {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            found += lines.filter { !$0.hasPrefix("//") && $0.contains(".treeEmptied") }
        }
        #expect(found == ["if unit.isEmpty() { handle(.treeEmptied, at: now) }"])
    }

    /// Where a refusal goes is the core's (``RunCore/refusal(_:of:from:)``,
    /// ``RunInput/commandRejected(text:_:from:)``): the lines that deliver one — to a client's
    /// refusals or usage error, or as a stdin line's error in the log — are only the carrying
    /// out of the core's actions, in `Supervisor+RunCore.swift`.
    @Test func aRefusalIsDeliveredOnlyWhereTheCoreRoutesIt() throws {
        let deliveries = ["client.refusals.append", "client.usageError =", ".refused(line:", ".ignored(line:"]
        var found: [String] = []
        for file in try Self.shellFiles() where file.lastPathComponent != "Supervisor+RunCore.swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            found += lines.filter { line in !line.hasPrefix("//") && deliveries.contains { line.contains($0) } }
                .map { "\(file.lastPathComponent): \($0)" }
        }
        #expect(found == [])
    }

    /// The control server never calls the supervisor back: it takes no closure, and keeps the
    /// lines it reads until the supervisor takes them (docs/architecture.md, "The three paths").
    @Test func theControlServerTakesNoCallBack() throws {
        let source = try String(contentsOf: Self.shell.appendingPathComponent("Control/ControlServer.swift"), encoding: .utf8)
        #expect(source.contains("func takeCommands()"))
        #expect(!source.contains("@escaping"), "a closure handed in is a way back into the supervisor")
    }
}

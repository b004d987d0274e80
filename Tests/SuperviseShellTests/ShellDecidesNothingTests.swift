import Foundation
import Testing

/// The shell decides nothing of the run (docs/architecture.md, "The run core"): the facts the
/// run's rules read reach ``RunCore`` or a child's core, and no line of the supervisor's own code
/// reads one to decide by it.
@Suite(.timeLimit(.minutes(5))) struct ShellDecidesNothingTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")
    static let shell = sources.appendingPathComponent("SuperviseShell")

    /// What only a rule reads: a child's pending restart or order to terminate, the options the
    /// run's rules take, a violation kill, who a signal reaches, what a mistake does, the
    /// terminating signals counted, the facts behind the exit status, which children a stop of
    /// the job stops (a child with processes, in a state that runs), which suspended children
    /// the memory budget reclaims and whether it was, and whether a hint was given. Each is
    /// spelt as the cores spell it (``everyFactIsOneTheCoresRead()``).
    static let ruleFacts = [
        "restartPending", "toldToTerminate", "keepRunning", "violationStatus", "freezersUnavailableStatus",
        "killedForViolation", ".recipients(", "mistakes ==", "terminationSignals", "outcome.count(",
        "outcome.supervisorFailed", "outcome.violationKill", "outcome.scriptStepFailed",
        "stopsWithJob", "hasProcesses", "suspendedMemory", "ReclaimPlan.", ".by == .reclaim", "gaveHint",
    ]

    /// How the shell once decided what the run core now does (docs/architecture.md, "How one
    /// checks that the shell decides nothing"): a child that starts as it joins (`autostart`), a
    /// signal the table says nothing of, the children a command names, and one hint a run.
    static let movedRules = ["spec.autostart {", "?? .ignore", "children.count == 1", "$0.name == name", "gaveControlHint"]

    /// The lines of `source`, comments aside, that read a rule's fact or decide as the shell once did.
    static func decisions(in source: String) -> [String] {
        source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { line in !line.hasPrefix("//") && (ruleFacts + movedRules).contains { line.contains($0) } }
    }

    /// The supervisor, its children, its stdin reader and the control server: every file that
    /// once decided for the run.
    static func shellFiles() throws -> [URL] {
        let supervisor = shell.appendingPathComponent("Supervisor")
        let names = try FileManager.default.contentsOfDirectory(atPath: supervisor.path).filter {
            $0 == "Supervisor.swift" || $0.hasPrefix("Supervisor+") || $0.hasPrefix("SupervisedChild")
                || $0 == "CommandReader.swift"
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
            if spec.autostart { start(child, at: now) }
            """
        #expect(Self.decisions(in: source) == ["if child.status.restartPending { start(child, at: now) }",
                                               "if spec.autostart { start(child, at: now) }"])
    }

    /// A fact misspelt would never be found: each is read somewhere in the cores.
    @Test func everyFactIsOneTheCoresRead() throws {
        let lifecycle = Self.sources.appendingPathComponent("SuperviseLifecycle")
        let cores = try FileManager.default.contentsOfDirectory(atPath: lifecycle.path)
            .map { try String(contentsOf: lifecycle.appendingPathComponent($0), encoding: .utf8) }.joined()
        #expect(Self.ruleFacts.filter { !cores.contains($0) } == [])
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
    /// ``RunInput/commandRejected(text:_:from:)``, ``RunInput/waitFailed(text:reason:children:from:)``):
    /// the lines that deliver one — to a client's refusals, usage error or failed `wait`, or as a
    /// stdin line's error in the log — are only the carrying out of the core's actions, in
    /// `Supervisor+RunCore.swift`.
    @Test func aRefusalIsDeliveredOnlyWhereTheCoreRoutesIt() throws {
        let deliveries = ["client.refusals.append", "client.usageError =", ".refused(line:", ".ignored(line:",
                          "finish(client, .error(.waitFailed"]
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

import Foundation
import Testing
import SuperviseTestSupport

/// Every `supervise` command shown in a code block of README.md or docs/*.md is run by this suite, read from
/// the docs when the tests run, so a doc can't drift from the binary unnoticed.
///
/// A command is a logical line (`\` continuations joined) of an indented or fenced code block in which the
/// word `supervise` stands as a shell word (at the start, after `$ `, a pipe, a `(` or a space) followed by a
/// space, or inline code in prose that starts with `supervise ` (on one line). Each is run with `/bin/sh -c` in
/// a temporary working directory that holds the doc's placeholders, with `supervise` on `PATH` standing for the
/// built binary (a wrapper that records its exit status). It must
/// end within `timeout`, must have run `supervise`, and `supervise` must not exit 2 (usage), 123 (a stdin
/// script that failed), 125 (supervise failed), 126 or 127 (a command not found or not runnable), nor print
/// `supervise: error:` — unless `plans` gives the status the doc shows. A command in a `$` transcript gets the
/// lines below it (up to the next `$ ` or `#` line) as its standard input; any other command gets `terminate`.
///
/// `plans` holds, by exact doc text, the substitutions made to a command before it runs and the commands not
/// run here, with the reason (printed through `SkipReason`). A doc command that is not in `plans` runs as the
/// doc writes it; a plan whose text no doc shows any more fails, so the table can't go stale.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct DocCommandTests {
    static let suite = "DocCommandTests"
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let timeout = 30.0

    /// What to do with one doc command other than running it as written.
    struct Plan: Sendable {
        /// Text replaced before the command runs; each `from` must occur in the command.
        var substitutions: [(from: String, to: String)] = []
        /// The exit status the doc gives `supervise` when it is not a success (then `supervise: error:` may be printed).
        var status: Int32? = nil
        /// Why the command is not run here.
        var notRun: String? = nil
        /// Programs the command needs beyond supervise, sh and coreutils: without one it is skipped, saying so.
        var needs: [String] = []
        /// Standard input instead of `terminate` (for a command not in a transcript, whose doc says it ends by itself).
        var input: String? = nil
    }

    /// Why the `supervise ctl` steps of docs/cli.md are not run one by one.
    static let ctlStep = "needs the supervisor the line above starts; examples/ci/ctl-lifecycle.sh runs these steps (DocumentedExampleTests) and ControlSocketTests every command"

    /// Plans by the command's exact text: `\` continuations joined with one space, a leading `$ ` removed.
    static let plans: [String: Plan] = [
        // docs/cli.md: a second `--` is the program's name, which is not found.
        "supervise -- -- true": Plan(status: 127),
        // README: "it ends in about 5 s with status 1", by itself.
        "supervise --config examples/supervise.toml":
            Plan(status: 1, input: ""),
        // Synopses: the placeholders become a worker and a config file.
        "supervise [OPTIONS] -- COMMAND [ARG...]     one child":
            Plan(substitutions: [("[OPTIONS] -- COMMAND [ARG...]     one child", "-- ./worker")]),
        "supervise --config FILE [OPTIONS]           several named children (TOML)":
            Plan(substitutions: [("FILE [OPTIONS]           several named children (TOML)", "supervise.toml")]),
        "supervise --config FILE [OPTIONS]":
            Plan(substitutions: [("FILE [OPTIONS]", "supervise.toml")]),
        // docs/client.md: the example is built next to the binary the tests use; `swift build` is not run again.
        "supervise --window 0.5 -- \"$(swift build --show-bin-path)/swift-worker-example\"":
            Plan(substitutions: [("$(swift build --show-bin-path)", URL(fileURLWithPath: Supervise.binary).deletingLastPathComponent().path)]),
        "supervise -- \"$(swift build --show-bin-path)/swift-worker-example\"":
            Plan(substitutions: [("$(swift build --show-bin-path)", URL(fileURLWithPath: Supervise.binary).deletingLastPathComponent().path)]),
        // docs/performance.md: measurements, shortened; what they measure is not checked here.
        "supervise --control none -- sleep 30 &":
            Plan(substitutions: [("sleep 30 &", "sleep 0.3")]),
        "awk 'BEGIN { for (i = 0; i < 300000; i++) print \"background\\nwait suspended\\nforeground\\nwait active\"; print \"terminate\" }' | /usr/bin/time -f 'exit %x, %e s, max RSS %M kB' supervise --window 0 --log-level warning --report run.json -- sh -c 'exec cat <&3 >/dev/null'":
            Plan(substitutions: [("i < 300000", "i < 3")], needs: ["/usr/bin/time"]),
        "{ head -c 30000000 /dev/zero | tr '\\0' x; printf '\\nstatus\\nterminate\\n'; } | /usr/bin/time -f '%e s, max RSS %M kB' supervise --keep-going -- sleep 300 2> err.txt; wc -c err.txt":
            Plan(status: 0, needs: ["/usr/bin/time"]),  // the refused line's error is the point; status and terminate are still answered
        "timeout 10 supervise --config /dev/zero; echo $?":
            Plan(status: 2),
        "( sleep 20; echo status; echo terminate ) | supervise --log-level error -- python3 -c '":
            Plan(notRun: "a 20 s memory measurement of 1,000,000 requests; the bound it shows is tested by BoundsTests"),
        // docs/freezers.md
        "systemd-run --user --scope -p Delegate=yes supervise -- ./worker":
            Plan(notRun: "needs a systemd user session (a delegated cgroup for a user); root runs the same command without it"),
        // docs/security.md: the server becomes a check that the child runs as www-data (a root supervisor, as the doc says).
        "supervise --user www-data --capabilities cap_net_bind_service -- ./server --port 80":
            Plan(substitutions: [("./server --port 80", "sh -c 'test \"$(id -un)\" = www-data'")]),
        // Inline code that names an option rather than giving a command.
        "supervise --config": Plan(notRun: "names the option in prose; not a whole command"),
        "supervise --report FILE": Plan(notRun: "names the option in prose; not a whole command (docs/report.md runs it in full)"),
        "supervise --junit FILE": Plan(notRun: "names the option in prose; not a whole command (docs/report.md runs it in full)"),
        "supervise --config f.toml --window 3s": Plan(substitutions: [("f.toml", "supervise.toml")]),
        // docs/client.md: what not to do (the worker would run unsupervised); it needs a Swift package and a `swift run`.
        "supervise -- swift run worker":
            Plan(notRun: "a counter-example (the doc says not to run a worker this way); it needs a package to `swift run`"),
        // docs/report.md's picture: uploader holds its task past the limit, so 124; the report is drawn from the
        // run.json the command before it wrote, made here first.
        "printf 'background all\\nwait exited uploader timeout=10s\\nforeground tidy\\nwait active tidy\\nterminate all\\n' | supervise --config examples/ci/two-children.toml --report run.json --html run.html":
            Plan(status: 124),
        "supervise report run.json --html again.html    # the same page, from the report":
            Plan(substitutions: [("supervise report", "supervise --report run.json -- true && supervise report")]),
        "supervise report run.json --html run.html":
            Plan(substitutions: [("supervise report", "supervise --report run.json -- true && supervise report")]),
        // docs/cli.md, "Control from outside": the supervisor of the example runs briefly in its own directory;
        // each `ctl` line needs it running, which one line at a time can't give.
        "supervise --socket /tmp/run.sock --control none -- ./worker &":
            Plan(substitutions: [("/tmp/run.sock", "run.sock"), ("./worker &", "sleep 0.3")]),
        "supervise ctl --socket /tmp/run.sock wait active": Plan(notRun: ctlStep),
        "supervise ctl --socket /tmp/run.sock background": Plan(notRun: ctlStep),
        "supervise ctl --socket /tmp/run.sock wait suspended timeout=20s": Plan(notRun: ctlStep),
        "supervise ctl --socket /tmp/run.sock status": Plan(notRun: ctlStep),
        "supervise ctl --socket /tmp/run.sock terminate": Plan(notRun: ctlStep),
        "supervise ctl [--socket PATH] COMMAND       drive a running supervisor":
            Plan(notRun: "a synopsis; ControlSocketTests runs the subcommand in full"),
        "supervise ctl [--socket PATH] [--format json|table] [--timeout DURATION] COMMAND [ARG...]":
            Plan(notRun: "a synopsis; ControlSocketTests runs the subcommand in full"),
        "supervise ctl": Plan(notRun: "names the subcommand in prose"),
        "supervise ctl: error: no answer from the supervisor at 'PATH' within 10s (stopped, or not serving?)": Plan(notRun: "an error line"),
        "supervise ctl background all": Plan(notRun: ctlStep),
        "supervise ctl event worker push new message": Plan(notRun: ctlStep),
        "supervise ctl: error: MESSAGE": Plan(notRun: "the form of ctl's error line, not a command"),
        "supervise VERSION (protocol 1)": Plan(notRun: "the form of the --version line, not a command"),
        // docs/cli.md, "Remapping a signal": nginx stands for a program that uses USR1 and HUP itself.
        "supervise --signal USR1=forward --signal HUP=forward -- nginx -g 'daemon off;'":
            Plan(substitutions: [("nginx -g 'daemon off;'", "./worker")]),
        // docs/cli.md: the subcommand's synopsis.
        "supervise report FILE --html FILE           draw a JSON report as a picture":
            Plan(notRun: "a synopsis; docs/report.md runs the subcommand in full"),
        "supervise doctor                            what supervise can do here":
            Plan(substitutions: [("                            what supervise can do here", "")]),
        "supervise report FILE --html OUT":
            Plan(notRun: "names the subcommand in prose; docs/report.md runs it in full"),
        // docs/report.md: ci.toml is the file below; the worker holds its task past the limit, so 124.
        "printf 'background worker\\nwait exited worker timeout=10s\\n' | supervise --config ci.toml --junit results.xml":
            Plan(status: 124),
    ]

    /// One `supervise` command of the docs.
    struct Command: CustomTestStringConvertible, Sendable {
        var file: String
        var line: Int
        var text: String
        var input: [String]
        var testDescription: String { "\(file):\(line)" }
    }

    /// The docs read: README.md and every docs/*.md.
    static func docs() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The commands of every doc, in order.
    static func commands() -> [Command] {
        docs().flatMap { file in
            let text = (try? String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)) ?? ""
            return commands(in: text, file: file)
        }
    }

    /// The code blocks of `markdown` as groups of consecutive non-blank code lines (line number, text without indent).
    static func codeGroups(_ markdown: String) -> [[(Int, String)]] {
        var groups: [[(Int, String)]] = [], group: [(Int, String)] = []
        var fenced = false, previousBlankOrCode = true
        func flush() { if !group.isEmpty { groups.append(group); group = [] } }
        for (index, raw) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                flush(); fenced.toggle(); previousBlankOrCode = true
                continue
            }
            if trimmed.isEmpty {
                flush(); previousBlankOrCode = true
                continue
            }
            // An indented line is code only where a paragraph or list item can't be continuing.
            let indented = raw.hasPrefix("    ") || raw.hasPrefix("\t")
            if fenced || (indented && previousBlankOrCode) {
                group.append((index + 1, trimmed))
                previousBlankOrCode = true
            } else {
                flush()
                previousBlankOrCode = false
            }
        }
        flush()
        return groups
    }

    /// Whether `line` runs `supervise`: the word at the start, or after a space, `|` or `(`, followed by a space.
    static func runsSupervise(_ line: String) -> Bool {
        var rest = Substring(line)
        while let range = rest.range(of: "supervise ") {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            if before == nil || before == " " || before == "|" || before == "(" { return true }
            rest = line[range.upperBound...]
        }
        return false
    }

    static func commands(in markdown: String, file: String) -> [Command] {
        var found: [Command] = []
        for group in codeGroups(markdown) {
            // Logical lines: a line ending in `\` goes on with the next.
            var logical: [(Int, String)] = []
            var pending: (Int, String)? = nil
            for (number, text) in group {
                let start = pending ?? (number, "")
                let joined = start.1.isEmpty ? text : start.1 + " " + text
                if text.hasSuffix("\\") {
                    pending = (start.0, String(joined.dropLast()).trimmingCharacters(in: .whitespaces))
                } else {
                    logical.append((start.0, joined)); pending = nil
                }
            }
            if let pending { logical.append(pending) }
            for (index, (number, text)) in logical.enumerated() {
                let transcript = text.hasPrefix("$ ")
                let command = transcript ? String(text.dropFirst(2)) : text
                guard runsSupervise(command) else { continue }
                // In a transcript, the lines typed below the command are its input.
                let input = transcript
                    ? Array(logical[(index + 1)...].map(\.1).prefix { !$0.hasPrefix("$ ") && !$0.hasPrefix("#") })
                    : []
                found.append(Command(file: file, line: number, text: command, input: input))
            }
        }
        // Inline code in prose that starts with the command: `supervise -- /bin/true`.
        let codeLines = Set(codeGroups(markdown).flatMap { $0.map(\.0) })
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !codeLines.contains(index + 1) {
            let spans = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            for span in spans where span.hasPrefix("supervise ") {
                found.append(Command(file: file, line: index + 1, text: span, input: []))
            }
        }
        return found.sorted { $0.line < $1.line }
    }

    // MARK: Tests

    /// Each doc is read and yields its commands; the table names only commands the docs show.
    @Test func docsAreReadAndEveryPlanMatchesADocCommand() {
        let all = Self.commands()
        #expect(all.count >= 20, "only \(all.count) commands found: \(all.map(\.testDescription))")
        #expect(all.contains { $0.file == "README.md" })
        let texts = Set(all.map(\.text))
        for text in Self.plans.keys.sorted() where !texts.contains(text) {
            Issue.record("DocCommandTests.plans has a command no doc shows any more (changed or removed?): \(text)")
        }
        for (text, plan) in Self.plans {
            for substitution in plan.substitutions where !text.contains(substitution.from) {
                Issue.record("the substitution of '\(substitution.from)' does not occur in: \(text)")
            }
        }
    }

    /// The extraction finds what it should: prompts, pipes, continuations, transcripts; not prose or output.
    @Test func extractionFindsCommandsAndTheirInput() {
        let markdown = """
        Prose that says supervise runs things.

            $ supervise --window 2 -- ./worker
            background                # a comment
            status
            $ kill -USR1 $(pidof supervise)

            printf 'terminate\\n' \\
              | supervise -- ./worker
            timeout 10 supervise --config /dev/zero; echo $?
            supervise: error: not a command
            {"cgroup":"/sys/fs/cgroup/supervise-1/worker.1"}

        ```
        X=1 supervise --name a -- true
        ```

        See `supervise --help` and `supervise`; `supervise: error` is output.
        """
        let found = Self.commands(in: markdown, file: "t.md")
        #expect(found.map(\.line) == [3, 8, 10, 15, 18])
        #expect(found.map(\.text) == ["supervise --window 2 -- ./worker", "printf 'terminate\\n' | supervise -- ./worker",
                                      "timeout 10 supervise --config /dev/zero; echo $?", "X=1 supervise --name a -- true",
                                      "supervise --help"])
        #expect(found.first?.input == ["background                # a comment", "status"])
    }

    @Test(arguments: commands()) func docCommandRuns(_ command: Command) throws {
        let plan = Self.plans[command.text] ?? Plan()
        let location = "\(command.file):\(command.line)"
        let missing = plan.needs.first { !FileManager.default.isExecutableFile(atPath: $0) }
        let reason = plan.notRun ?? missing.map { "needs \($0), not installed here" }
        guard SkipReason.check(reason, skipping: "\(location): \(command.text)", in: Self.suite) else { return }
        var script = command.text
        for substitution in plan.substitutions { script = script.replacingOccurrences(of: substitution.from, with: substitution.to) }
        var input = command.input
        if !input.contains(where: { $0.hasPrefix("terminate") }) { input.append("terminate") }
        let stdin = plan.input ?? input.joined(separator: "\n") + "\n"

        let place = try DocPlace()
        defer { place.remove() }
        let result = try place.run(script, stdin: stdin, timeout: Self.timeout)
        let shown = "\(location): \(command.text)\nran: \(script)\nshell status \(result.status)\n"
            + "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)"
        #expect(result.ended, "did not end within \(Self.timeout) s: \(shown)")
        #expect(!result.statuses.isEmpty, "supervise was not run: \(shown)")
        for status in result.statuses {
            if let expected = plan.status {
                #expect(status == expected, "supervise exited \(status), the doc says \(expected): \(shown)")
            } else {
                #expect(![2, 123, 125, 126, 127].contains(status), "supervise exited \(status): \(shown)")
            }
        }
        if plan.status == nil {
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("supervise: error:") }
            #expect(errors.isEmpty, "supervise printed errors: \(shown)")
        }
    }
}

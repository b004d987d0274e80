import Foundation
import Testing
import SuperviseTestSupport

/// Bad options are refused with one line and exit 2, before anything is launched.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct UsageTests {
    @Test(arguments: [
        (["--window", "-1", "--", "true"], "window"),
        (["--window", "10", "--limit", "5", "--", "true"], "--window"),
        (["--expiry-warning", "30", "--", "true"], "--expiry-warning"),
        (["--window", "fast", "--", "true"], "fast"),
        (["--freezer", "ice", "--", "true"], "ice"),
        (["--launch", "sideways", "--", "true"], "sideways"),
        (["--aware", "--launch-timeout", "0", "--", "true"], "--launch-timeout must be longer than 0"),
        (["--violation-status", "300", "--", "true"], "violation-status"),
        ([], "no command"),
        (["--windw", "2", "./worker"], "Unknown option '--windw'. Did you mean '--window'?"),
        (["--windw", "2", "--", "true"], "Unknown option '--windw'. Did you mean '--window'?"),
        (["./worker"], "Unexpected argument './worker': put the command after '--'"),
        (["sleep", "1"], "2 unexpected arguments: 'sleep', '1': put the command after '--'"),
        (["docter"], "Unexpected argument 'docter': did you mean 'supervise doctor'?"),
        (["statsu"], "Unexpected argument 'statsu': did you mean 'supervise ctl status'?"),
        (["--signal", "USR1=pause", "--", "true"], "--signal unknown action 'pause'"),
        (["--signal", "KILL=ignore", "--", "true"], "SIGKILL can't be remapped"),
        (["--socket-group", "nogroup", "--", "true"], "give --socket PATH too"),
        (["--socket", "/nonexistent-dir/s", "--", "true"], "cannot listen on the control socket '/nonexistent-dir/s'"),
        (["--log-level", "loud", "--", "true"], "trace, debug, info, notice, warning, error, critical"),
        (["--name", "a\nb", "--", "true"], "'a\\nb'"),
        (["--window", "1\u{301}", "--", "true"], "invalid duration"),
        // A value that looks like an option is still the option's value, and what is wrong with it is said.
        (["--window", "-0", "--", "true"], "invalid duration '-0': must not be negative"),
        (["--grace", "-1", "--", "true"], "invalid duration '-1': must not be negative"),
        (["--suspended-memory", "-1", "--", "true"], "invalid size '-1': must not be negative"),
        (["--max-tasks", "-1", "--", "true"], "--max-tasks must be between 1 and 1000000, not -1"),
        (["--violation-status", "-1", "--", "true"], "--violation-status must be between 0 and 255, not -1"),
        (["--window", "--limit", "5", "--", "true"], "invalid duration '--limit': expected seconds"),
        // What is wrong with --limit itself, not with an expiry warning nobody gave.
        (["--limit", "0", "--", "true"], "--limit must be longer than 0"),
    ])
    func invalidOptionsExitWith2(arguments: [String], mentions: String) throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let marker = temporary.file("launched")
        // The child would leave a file behind if it were launched.
        let command = arguments.last == "true" ? arguments.dropLast() + ["touch", marker] : arguments
        let run = try Supervise.run(Array(command))
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(run.stderr)")
        #expect(run.stderr.contains(mentions), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing was launched")
    }

    /// Options after `--` are the command: the exec fails, and the line says where options go.
    @Test func anOptionAfterTheDoubleDashIsTheCommandAndTheErrorSaysSo() throws {
        let run = try Supervise.run(["--", "--window", "2", "true"])
        #expect(run.status == 127, "\(run.stderr)")
        #expect(run.stderr.contains("cannot run '--window': No such file or directory; supervise's options go before '--'"),
                "\(run.stderr)")
    }

    /// A mistyped state in a `wait` gets the state it most likely meant.
    @Test func aMistypedWaitStateGetsADidYouMean() throws {
        let run = try Supervise.run(["--", "sleep", "5"], stdin: "wait suspnded\n")
        #expect(run.status == 123, "\(run.stderr)")
        #expect(run.stderr.contains("unknown state 'suspnded' (did you mean 'suspended'?)"), "\(run.stderr)")
    }

    @Test func versionPrintsTheVersionAndProtocol() throws {
        let run = try Supervise.run(["--version"])
        #expect(run.status == 0 && run.stdout == "supervise 0.9.0 (protocol 1)\n" && run.stderr.isEmpty, "\(run)")
    }

    /// The README's CI line: a short `--limit` alone fits the window and expiry warning left at
    /// their defaults (it once exited 2: "--expiry-warning (5s) must be shorter than --limit (5s)").
    @Test func theReadmesShortLimitLineRuns() throws {
        let run = try Supervise.run(["--aware", "--window", "0.5", "--limit", "5", "--", Supervise.worker("aware-worker.sh")],
                                    stdin: "wait active\nbackground\nwait suspended\nforeground\nwait active\nterminate\n")
        #expect(run.status == 0, "\(run.stderr)")
        let settings = run.report?["settings"] as? [String: Any] ?? [:]
        #expect(settings["expiry_warning_ms"] as? Int == 2500, "\(settings)")
    }

    @Test func durationsAcceptUnits() throws {
        let run = try Supervise.run(["--window", "250ms", "--limit", "1m", "--grace", "2s", "--", "true"])
        #expect(run.status == 0, "\(run.stderr)")
        let settings = try #require(run.report?["settings"] as? [String: Any])
        #expect(settings["window_ms"] as? Int == 250)
        #expect(settings["limit_ms"] as? Int == 60000)
        #expect(settings["grace_ms"] as? Int == 2000)
    }

    @Test func helpDocumentsExitStatusesAndCommands() throws {
        let run = try Supervise.run(["--help"])
        #expect(run.status == 0)
        for text in ["EXIT STATUS", "124", "123", "125", "wait STATE", "SIGUSR1", "SIGTERM, SIGINT, SIGHUP", "--on-window-overrun",
                     "--keep-going"] {
            #expect(run.stdout.contains(text), "--help mentions \(text)")
        }
    }

    /// ArgumentParser wraps `--help` at the terminal's width: at 80 columns nothing before the
    /// options may be wrapped at all (it would lose its indent mid-sentence), and an option's help
    /// may break only before a parenthesis, or inside ArgumentParser's own `(values: …)` list.
    @Test func helpReadsWellAt80Columns() throws {
        let narrow = try Supervise.run(["--help"], environment: ["COLUMNS": "80"]).stdout
        let wide = try Supervise.run(["--help"], environment: ["COLUMNS": "300"]).stdout
        func beforeOptions(_ text: String) -> Substring { text[..<(text.range(of: "OPTIONS:")?.lowerBound ?? text.endIndex)] }
        #expect(beforeOptions(narrow) == beforeOptions(wide), "wrapped at 80 columns:\n\(narrow)")
        let indent = String(repeating: " ", count: 26)
        var help = ""
        for line in narrow.split(separator: "\n").drop(while: { $0 != "OPTIONS:" }).dropFirst() {
            #expect(line.count <= 80, "\(line)")
            guard line.hasPrefix(indent) else {
                // A synopsis too long for its column has its help on the next line.
                help = line.dropFirst(indent.count - 2).hasPrefix("  ") ? String(line.dropFirst(indent.count)) : ""
                continue
            }
            let text = line.drop { $0 == " " }
            let open = help.range(of: "(", options: .backwards)
            let insideValues = open.map { help[$0.lowerBound...].hasPrefix("(values:") && !help[$0.lowerBound...].contains(")") } ?? false
            #expect(help.isEmpty || text.hasPrefix("(") || insideValues, "wrapped mid-sentence: \(help) / \(text)")
            help += (help.isEmpty ? "" : " ") + text
        }
    }

    @Test func jsonLogHasOneObjectPerLine() throws {
        let run = try Supervise.run(["--keep-going", "--log-format", "json", "--window", "0", "--", "sleep", "30"],
                                    stdin: "background\nwait suspended\nbogus\nterminate\n")
        #expect(run.status == 0)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count >= 5)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["message"] is String && object?["level"] is String && object?["t_ms"] is Double, "\(line)")
        }
        #expect(lines.contains { $0.contains("\"child\":\"sleep\"") && $0.contains("\"message\":\"suspended\"") })
        #expect(lines.contains { $0.contains("\"level\":\"error\"") && $0.contains("bogus") })
    }
}

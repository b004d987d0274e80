import Foundation

/// What /proc says about one process: CPU ticks, context switches, resident memory.
private struct ProcessSample {
    let cpuTicks: Double
    let switches: Double
    let rssKB: Double
    /// The resident set's anonymous part (heap, stacks, written data); the rest is pages of the
    /// executable and the shared libraries it maps.
    let anonymousKB: Double

    init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        cpuTicks = user + system
        func value(_ key: String) -> Double {
            status.split(separator: "\n").first { $0.hasPrefix(key) }
                .flatMap { Double($0.dropFirst(key.count).trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) } ?? 0
        }
        switches = value("voluntary_ctxt_switches:") + value("nonvoluntary_ctxt_switches:")
        rssKB = value("VmRSS:")
        anonymousKB = value("RssAnon:")
    }
}

extension Bench {
    /// Each supervisor with one sleeping child, all at once: CPU, wake-ups and RSS over the interval.
    mutating func idle() throws {
        let seconds = 10.0
        let scratchDirectory = paths.scratch
        let service = { (name: String) -> String in
            let directory = scratchDirectory.appendingPathComponent("idle-\(name)")
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let run = directory.appendingPathComponent("run")
            try? "#!/bin/sh\nexec sleep 100000\n".write(to: run, atomically: true, encoding: .utf8)
            chmod(run.path, 0o755)
            return directory.path
        }
        var subjects: [(String, [String])] = [("supervise", [paths.supervise.path, "--", "sleep", "100000"])]
        if let compared { subjects.append(("supervise, compared", [compared, "--", "sleep", "100000"])) }
        subjects += paths.floors.map { ($0.name, [$0.path, "--", "sleep", "100000"]) }
        if let tini = which("tini") { subjects.append(("tini", [tini, "-s", "--", "sleep", "100000"])) }
        if let dumbInit = which("dumb-init") { subjects.append(("dumb-init", [dumbInit, "sleep", "100000"])) }
        if let s6 = which("s6-supervise") { subjects.append(("s6-supervise", [s6, service("s6")])) }
        if let runsv = which("runsv") { subjects.append(("runsv", [runsv, service("runit")])) }
        if let supervisord = which("supervisord") {
            let config = paths.scratch.appendingPathComponent("supervisord.conf")
            try """
            [supervisord]
            nodaemon=true
            logfile=\(paths.scratch.path)/supervisord.log
            pidfile=\(paths.scratch.path)/supervisord.pid
            [program:sleep]
            command=sleep 100000
            """.write(to: config, atomically: true, encoding: .utf8)
            subjects.append(("supervisord", [supervisord, "-c", config.path]))
        }
        var processes: [(String, Process)] = []
        defer {
            for (_, process) in processes where process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        for (name, arguments) in subjects {
            processes.append((name, try startQuietly(arguments)))
        }
        Thread.sleep(forTimeInterval: 2)
        let before = processes.map { ProcessSample(pid: $0.1.processIdentifier) }
        Thread.sleep(forTimeInterval: seconds)
        let after = processes.map { ProcessSample(pid: $0.1.processIdentifier) }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        for (index, (name, _)) in processes.enumerated() {
            guard let start = before[index], let end = after[index] else {
                results.skipped.append("idle / \(name): it exited during the measurement")
                continue
            }
            let wakeups = end.switches - start.switches
            let isSupervise = name.hasPrefix("supervise")
            add("idle 10 s: wake-ups", name, .count, [wakeups], target: isSupervise ? "0" : "") { _ in wakeups == 0 }
            add("idle 10 s: CPU", name, .nanoseconds, [(end.cpuTicks - start.cpuTicks) / ticks * 1e9])
            add("idle 10 s: RSS", name, .kilobytes, [end.rssKB], target: isSupervise ? "≤ 4 MB" : "") { _ in end.rssKB <= 4096 }
            add("idle 10 s: RSS, anonymous", name, .kilobytes, [end.anonymousKB])
        }
    }

    // MARK: - Scale

    /// N unaware children from one config, on each freezer the issue compares side by side
    /// (cgroup2, and sigstop, the one containers get): launch (wall clock, and the supervisor's
    /// CPU time, which the shared machine's load moves less), then SIGUSR1 → all suspended,
    /// SIGUSR2 → all active, `terminate all` → exit; RSS per child (`auto`'s run).
    /// With `--compare`, the other build runs each N right after this one, in the same turn.
    mutating func scale() throws {
        var subjects = [("supervise", paths.supervise.path)]
        if let compared { subjects.append(("supervise, compared", compared)) }
        var rssByCount: [String: [Int: Double]] = [:]
        for children in [1, 10, 100, 1000] {
            for freezer in ["auto", "cgroup2", "sigstop"] where freezer == "auto" || children > 1 {
                let config = paths.scratch.appendingPathComponent("scale-\(freezer)-\(children).toml")
                var text = "window = 0\nfreezer = \"\(freezer)\"\n"
                for index in 0..<children { text += "[child.c\(index)]\ncommand = [\"sleep\", \"100000\"]\n" }
                try text.write(to: config, atomically: true, encoding: .utf8)
                for (name, supervise) in subjects {
                    try scale(name: name, supervise: supervise, freezer: freezer, children: children,
                              config: config, rssByCount: &rssByCount)
                }
            }
        }
    }

    private mutating func scale(name: String, supervise: String, freezer: String, children: Int, config: URL,
                                rssByCount: inout [String: [Int: Double]]) throws {
        let log = scratch("scale-\(freezer)-\(children).log")
        let measured: [String: [Double]]
        do {
            measured = samples(in: try run([paths.probe("driver"), "scale", config.path, supervise, String(children)],
                                           environment: ["BENCH_TIME_LIMIT": full ? "120" : "30"], log: log, timeout: 150))
        } catch {
            let cause = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n")
                .first { $0.contains("error") || $0.hasPrefix("probe:") }.map(String.init) ?? "\(error)"
            results.skipped.append("scale, \(name), \(freezer), N = \(children): \(cause)")
            return
        }
        if freezer == "auto" { rssByCount[name, default: [:]][children] = measured["scale-rss-kb"]?.first }
        guard children > 1 else { return }
        let subject = freezer == "auto" ? "\(name), N = \(children)" : "\(name), \(freezer), N = \(children)"
        if freezer == "auto" {
            add("scale: launch all", subject, .nanoseconds, measured["scale-launch"] ?? [],
                target: children == 1000 ? "≤ 1 s" : "") { children == 1000 ? $0.p50 <= 1e9 : true }
            add("scale: launch all, supervisor CPU", subject, .nanoseconds, measured["scale-launch-cpu"] ?? [],
                note: "its threads' time on a CPU (schedstat)")
            add("scale: background all → all frozen", subject, .nanoseconds, measured["scale-freeze"] ?? [],
                target: children == 1000 ? "≤ 1 s" : "") { children == 1000 ? $0.p50 <= 1e9 : true }
            if let base = rssByCount[name]?[1], let rss = rssByCount[name]?[children] {
                let perChild = (rss - base) / Double(children - 1)
                add("scale: supervisor RSS per child", subject, .kilobytes, [perChild],
                    target: "≤ 32 KB") { _ in perChild <= 32 }
            }
            return
        }
        add("scale per freezer: background all → all frozen", subject, .nanoseconds, measured["scale-freeze"] ?? [])
        add("scale per freezer: foreground all → all active", subject, .nanoseconds, measured["scale-thaw"] ?? [])
        add("scale per freezer: terminate all → exit", subject, .nanoseconds, measured["scale-terminate"] ?? [],
            target: freezer == "sigstop" ? "≤ 2 × cgroup2's (issue 29)" : "",
            note: "sigstop is what `auto` picks in a container")
    }
}

import Foundation

/// The figures, each measured for supervise and for the peers present.
struct Bench {
    let paths: Paths
    let full: Bool
    /// Another supervise build, measured beside this one in the startup, idle and binary figures.
    let compared: String?
    var results: Results

    var supervise: String { paths.supervise.path }
    func scratch(_ name: String) -> URL { paths.scratch.appendingPathComponent(name) }
    func count(quick: Int, full fullCount: Int) -> Int { full ? fullCount : quick }

    /// Adds one row; `judge` decides the verdict from the summary where there is a target.
    mutating func add(_ figure: String, _ subject: String, _ unit: Unit, _ values: [Double],
                              target: String = "", note: String = "", judge: ((Summary) -> Bool)? = nil) {
        guard let summary = Summary(values) else {
            results.skipped.append("\(figure) / \(subject): no samples")
            return
        }
        let judged = target.isEmpty ? nil : judge.map { $0(summary) }
        results.rows.append(Row(figure: figure, subject: subject, unit: unit, summary: summary,
                                target: target, meets: judged, note: note))
    }

    func freezers() -> [String] {
        var found = ["sigstop"]
        if FileManager.default.isWritableFile(atPath: "/sys/fs/cgroup/freezer") { found.insert("cgroup1", at: 0) }
        if FileManager.default.isWritableFile(atPath: cgroup2Root + "/cgroup.procs") { found.insert("cgroup2", at: 0) }
        return found
    }

    /// cgroup v2's root here: the unified hierarchy of a hybrid layout, or /sys/fs/cgroup.
    private var cgroup2Root: String {
        FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified/cgroup.procs") ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup"
    }

    // MARK: - Latency: event, suspend, foreground, and their floors

    mutating func latency() throws {
        let cycles = count(quick: 150, full: 1000)
        let floors = samples(in: try run([paths.probe("floor"), "pipe", String(cycles)]))
        add("event latency", "raw pipe (floor)", .nanoseconds, floors["pipe"] ?? [])
        for freezer in freezers() {
            let report = scratch("cycle-\(freezer).json")
            let output = try run([paths.probe("driver"), "cycle", String(cycles), paths.scratch.path, supervise,
                                  "--window", "10", "--freezer", freezer, "--report", report.path],
                                 environment: ["BENCH_CHILD": paths.probe("child")], log: scratch("cycle-\(freezer).log"))
            let measured = samples(in: output)
            add("event latency", "supervise (\(freezer))", .nanoseconds, measured["event"] ?? [],
                target: "p50 ≤ 100 µs, p99 ≤ 500 µs") { $0.p50 <= 100_000 && $0.p99 <= 500_000 }
            let inside = try SuperviseReport(contentsOf: report).intervals(
                from: { $0.kind == "request" && $0.text.hasPrefix("end ") },
                to: { $0.kind == "state" && $0.text == "suspended" }).map { $0 * 1e6 }
            add("suspend latency", "supervise (\(freezer))", .nanoseconds, measured["suspend"] ?? [],
                target: freezer == "cgroup2" ? "p50 ≤ 1 ms" : "", note: "end → `status` says suspended") {
                freezer == "cgroup2" ? $0.p50 <= 1_000_000 : true
            }
            add("suspend latency", "supervise (\(freezer)), in report", .nanoseconds, inside,
                note: "`end` read → suspended, supervise's clock; 0 = same loop turn")
            add("foreground", "supervise (\(freezer))", .nanoseconds, measured["foreground"] ?? [],
                target: "p50 ≤ 200 µs") { $0.p50 <= 200_000 }
        }
        let stops = samples(in: try run([paths.probe("floor"), "sigstop", String(cycles)]))
        add("suspend latency", "SIGSTOP → waitpid (floor)", .nanoseconds, stops["sigstop"] ?? [])
        add("foreground", "SIGCONT → waitpid (floor)", .nanoseconds, stops["sigcont"] ?? [])
        let relay = samples(in: try run([paths.probe("floor"), "relay", String(cycles)]))
        add("foreground", "pipe relay, 3 wake-ups (floor)", .nanoseconds, relay["relay"] ?? [],
            note: "the VM's cost of the foreground's path with no work on it")
        if freezers().contains("cgroup2") {
            let v2 = samples(in: try run([paths.probe("floor"), "cgroup2", String(cycles), cgroup2Root]))
            add("suspend latency", "cgroup.freeze → frozen 1 (floor)", .nanoseconds, v2["cgroup2-freeze"] ?? [])
            add("suspend latency", "same, woken by notification", .nanoseconds, v2["cgroup2-freeze-notified"] ?? [],
                note: "kernel rate-limits cgroup.events notifications")
            add("foreground", "cgroup.freeze 0 → frozen 0 (floor)", .nanoseconds, v2["cgroup2-thaw"] ?? [])
        }
        if freezers().contains("cgroup1") {
            let v1 = samples(in: try run([paths.probe("floor"), "cgroup1", String(cycles), "/sys/fs/cgroup/freezer"]))
            add("suspend latency", "freezer.state FROZEN (floor)", .nanoseconds, v1["cgroup1-freeze"] ?? [])
            add("foreground", "freezer.state THAWED (floor)", .nanoseconds, v1["cgroup1-thaw"] ?? [])
        }
    }

    // MARK: - Pause end to end

    mutating func pause() throws {
        let turns = count(quick: 30, full: 200)
        var supervisePause: Double = .infinity
        for freezer in freezers() {
            let kind = "supervise-\(freezer)"
            let measured = samples(in: try run([paths.probe("driver"), "pause", String(turns), kind, paths.scratch.path,
                                                supervise, "--window", "0", "--freezer", freezer],
                                               log: scratch("pause-\(freezer).log")))
            let values = measured["pause-\(kind)"] ?? []
            if freezer == freezers().first { supervisePause = Summary(values)?.p50 ?? .infinity }
            add("pause, window 0", "supervise (\(freezer)) via kill(1)", .nanoseconds, values)
            add("pause, window 0", "supervise (\(freezer)) via kill(2)", .nanoseconds, measured["pause-\(kind)-kill"] ?? [])
        }
        var peers: [(kind: String, subject: String)] = []
        if which("runsv") != nil, which("sv") != nil { peers.append(("runit", "sv pause (runit)")) }
        if which("s6-supervise") != nil, which("s6-svc") != nil { peers.append(("s6", "s6-svc -p (s6)")) }
        for (kind, subject) in peers {
            let measured = samples(in: try run([paths.probe("driver"), "pause", String(turns), kind, paths.scratch.path]))
            add("pause, window 0", subject, .nanoseconds, measured["pause-\(kind)"] ?? [])
            if kind == "runit", let runit = results.rows.last?.summary.p50,
               let index = results.rows.firstIndex(where: { $0.figure == "pause, window 0" && $0.subject.hasPrefix("supervise") }) {
                results.rows[index].target = "faster than sv pause"
                results.rows[index].meets = supervisePause < runit
            }
        }
    }

    // MARK: - Timers

    mutating func timers() throws {
        let cycles = count(quick: 20, full: 200)
        let window = scratch("timer-window.json")
        let script = String(repeating: "background\nwait suspended\nforeground\nwait active\n", count: cycles) + "terminate\n"
        try run([supervise, "--window", "0.02", "--report", window.path, "--", "sleep", "100000"],
                stdin: script, log: scratch("timer-window.log"))
        let windowErrors = try SuperviseReport(contentsOf: window).intervals(
            from: { $0.kind == "event" && $0.text.hasPrefix("did-enter-background") },
            to: { $0.kind == "state" && $0.text == "suspending" }).map { $0 - 20 }
        add("timer: window (20 ms)", "supervise", .milliseconds, windowErrors, target: "±2 ms p99") {
            abs($0.p99) <= 2 && abs($0.min) <= 2
        }
        let expiry = scratch("timer-expire.json")
        try run([supervise, "--window", "0.05", "--limit", "0.2", "--expiry-warning", "0.1", "--report", expiry.path,
                 "--", paths.probe("child"), "hold", "/dev/null"], stdin: script, log: scratch("timer-expire.log"))
        let expiryErrors = try SuperviseReport(contentsOf: expiry).intervals(
            from: { $0.kind == "event" && $0.text.hasPrefix("did-enter-background") },
            to: { $0.kind == "event" && $0.text.hasPrefix("expire ") }).map { $0 - 100 }
        add("timer: expire (limit − warning, 100 ms)", "supervise", .milliseconds, expiryErrors, target: "±2 ms p99") {
            abs($0.p99) <= 2 && abs($0.min) <= 2
        }
        var limitErrors: [Double] = []
        for run_ in 0..<count(quick: 5, full: 30) {
            let report = scratch("timer-limit-\(run_).json")
            _ = try? run([supervise, "--launch", "background", "--control", "none", "--window", "0.05", "--limit", "0.1",
                      "--expiry-warning", "0.05", "--report", report.path, "--", paths.probe("child"), "ignore", "/dev/null"],
                     log: scratch("timer-limit.log"))
            let parsed = try SuperviseReport(contentsOf: report)
            if let start = parsed.timelines.first?.first(where: { $0.kind == "event" && $0.text.hasPrefix("did-enter-background") }),
               let killed = parsed.violationTimes.first {
                limitErrors.append(killed - start.milliseconds - 100)
            }
        }
        add("timer: limit kill (100 ms)", "supervise", .milliseconds, limitErrors, target: "±2 ms p99") {
            abs($0.p99) <= 2 && abs($0.min) <= 2
        }
    }

    // MARK: - Startup overhead

    mutating func startup() throws {
        var wrappers: [(String, [String])] = [("bare exec", [])]
        wrappers.append(("supervise", [supervise, "--control", "none", "--"]))
        wrappers.append(("supervise --freezer sigstop", [supervise, "--control", "none", "--freezer", "sigstop", "--"]))
        if let compared {
            wrappers.append(("supervise, compared", [compared, "--control", "none", "--"]))
            wrappers.append(("supervise, compared --freezer sigstop", [compared, "--control", "none", "--freezer", "sigstop", "--"]))
        }
        wrappers += paths.floors.map { ($0.name, [$0.path, "--"]) }
        if let tini = which("tini") { wrappers.append(("tini -s", [tini, "-s", "--"])) }
        if let dumbInit = which("dumb-init") { wrappers.append(("dumb-init", [dumbInit])) }
        var measured: [String: [Double]] = [:]
        for _ in 0..<count(quick: 5, full: 20) {
            for (name, prefix) in wrappers {
                let output = try run([paths.probe("driver"), "startup", "10"] + prefix + ["/bin/true"])
                measured[name, default: []] += samples(in: output)["startup"] ?? []
            }
        }
        if freezers().contains("cgroup2") {
            let placement = samples(in: try run([paths.probe("floor"), "place", String(count(quick: 10, full: 30)), cgroup2Root]))
            add("startup, -- /bin/true", "fork + write cgroup.procs (floor)", .nanoseconds, placement["place-write"] ?? [],
                note: "a first migration waits for an RCU grace period")
            add("startup, -- /bin/true", "clone3(CLONE_INTO_CGROUP) (floor)", .nanoseconds, placement["place-clone3"] ?? [])
        }
        let bare = Summary(measured["bare exec"] ?? [])?.p50 ?? 0
        let tiniOverhead = (Summary(measured["tini -s"] ?? [])?.p50).map { $0 - bare }
        for (name, _) in wrappers {
            let values = measured[name] ?? []
            guard name.hasPrefix("supervise"), let tiniOverhead else {
                add("startup, -- /bin/true", name, .nanoseconds, values, note: name == "bare exec" ? "" : "overhead p50 "
                    + format((Summary(values)?.p50 ?? 0) - bare, .nanoseconds))
                continue
            }
            let overhead = (Summary(values)?.p50 ?? 0) - bare
            add("startup, -- /bin/true", name, .nanoseconds, values, target: "overhead ≤ 3.5 × tini's",
                note: "overhead p50 \(format(overhead, .nanoseconds)) = \(format(overhead / tiniOverhead, .ratio)) tini's") { _ in
                overhead <= 3.5 * tiniOverhead
            }
        }
    }

    // MARK: - Binary size

    /// The executable's size as built and stripped (scripts/install.sh installs the stripped one),
    /// and each peer's as installed.
    mutating func binary() throws {
        let builds = [("supervise", supervise)] + (compared.map { [("supervise, compared", $0)] } ?? [])
            + paths.floors.map { ($0.name, $0.path) }
        for (subject, path) in builds {
            let stripped = scratch("stripped")
            try run(["strip", "-o", stripped.path, path])
            add("binary", "\(subject), as built", .kilobytes, [try kilobytes(path)])
            let size = try kilobytes(stripped.path)
            guard subject.hasPrefix("supervise") else {
                add("binary", "\(subject), stripped", .kilobytes, [size])
                continue
            }
            add("binary", "\(subject), stripped", .kilobytes, [size], target: "≤ 8 MB") { _ in size <= 8 * 1024 }
        }
        for peer in ["tini", "dumb-init"] {
            if let path = which(peer) { add("binary", peer, .kilobytes, [try kilobytes(path)]) }
        }
    }

    private func kilobytes(_ path: String) throws -> Double {
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
        return (size?.doubleValue ?? 0) / 1024
    }

    // MARK: - Throughput

    mutating func throughput() throws {
        let pairs = count(quick: 200_000, full: 1_000_000)
        var rates: [Double] = []
        for turn in 0..<count(quick: 3, full: 7) {
            let records = scratch("flood-\(turn).txt")
            _ = FileManager.default.createFile(atPath: records.path, contents: nil)
            try run([supervise, "--control", "none", "--", paths.probe("child"), "flood", records.path, String(pairs)],
                    log: scratch("flood.log"))
            let fields = try String(contentsOf: records, encoding: .utf8).split(separator: " ")
                .compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard fields.count == 3 else { throw BenchError("\(records.path): the flooding child recorded no result") }
            rates.append(2 * fields[0] / ((fields[2] - fields[1]) / 1e9))
        }
        add("protocol throughput", "supervise", .perSecond, rates, target: "≥ 500k requests/s") { $0.p50 >= 500_000 }
    }
}

import Foundation

extension Bench {
    // MARK: - Control round trip: `supervise ctl status` beside `sv status` and `s6-svstat`

    /// One status query from a new process to an idle supervisor, as a CI step makes it:
    /// `supervise ctl status` (spawn, connect, one line each way) against `supervise --socket`
    /// with one sleeping child, beside runit's `sv status` and s6's `s6-svstat` (each execs a
    /// small C program that reads its supervisor's status file), and the Swift floors started with
    /// nothing to do, each run by the driver (posix_spawn → exit) in alternating turns.
    mutating func ctl() throws {
        let directory = scratch("ctl")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("supervise.sock").path
        var daemons: [Process] = []
        defer {
            for daemon in daemons where daemon.isRunning {
                daemon.terminate()
                daemon.waitUntilExit()
            }
        }
        func start(_ arguments: [String]) throws {
            daemons.append(try startQuietly(arguments))
        }
        /// A runit or s6 service directory whose `run` sleeps.
        func service(_ name: String) throws -> String {
            let path = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            let run = path.appendingPathComponent("run")
            try "#!/bin/sh\nexec sleep 100000\n".write(to: run, atomically: true, encoding: .utf8)
            chmod(run.path, 0o755)
            return path.path
        }
        func ready(_ path: String) -> Bool {
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: path) { Thread.sleep(forTimeInterval: 0.01) }
            return FileManager.default.fileExists(atPath: path)
        }

        var subjects: [(String, [String])] = []
        try start([supervise, "--control", "none", "--socket", socket, "--", "sleep", "100000"])
        if ready(socket) {
            subjects.append(("supervise ctl status", [supervise, "ctl", "--socket", socket, "--format", "json", "status"]))
        }
        // What any Swift executable linked as supervise is costs to start and exit, with nothing to do.
        subjects += paths.floors.map { ("\($0.name), start only", [$0.path]) }
        if let runsv = which("runsv"), let sv = which("sv") {
            let path = try service("runit")
            try start([runsv, path])
            if ready(path + "/supervise/status") { subjects.append(("sv status", [sv, "status", path])) }
        }
        if let s6 = which("s6-supervise"), let svstat = which("s6-svstat") {
            let path = try service("s6")
            try start([s6, path])
            if ready(path + "/supervise/status") { subjects.append(("s6-svstat", [svstat, path])) }
        }
        var measured: [String: [Double]] = [:]
        for _ in 0..<count(quick: 5, full: 20) {
            for (name, command) in subjects {
                measured[name, default: []] += samples(in: try run([paths.probe("driver"), "startup", "20"] + command))["startup"] ?? []
            }
        }
        let peers = ["sv status", "s6-svstat"].compactMap { measured[$0].flatMap(Summary.init)?.p50 }
        for (name, _) in subjects {
            let values = measured[name] ?? []
            guard name.hasPrefix("supervise"), let slowest = peers.max() else {
                add("control round trip, idle", name, .nanoseconds, values)
                continue
            }
            let p50 = Summary(values)?.p50 ?? .infinity
            add("control round trip, idle", name, .nanoseconds, values, target: "p50 ≤ 2 × the peers'",
                note: "\(format(p50 / slowest, .ratio)) the slower peer's") { _ in p50 <= 2 * slowest }
        }
    }
}

import Foundation

extension Bench {
    // MARK: - Memory pressure: the kernel's trigger → the child reads `memory-warning`

    /// Genuine pressure (a hog thrashing in a memory-limited cgroup v1, started by the child):
    /// from the kernel's trigger firing (a trigger of the child's own on the file the supervisor
    /// watches, as `supervise doctor` names it) to the child reading `memory-warning`; and the
    /// kernel's own part, from the hog's start to its trigger, as the floor.
    mutating func pressure() throws {
        let doctor = try run([supervise, "doctor"])
        let prefix = "memory pressure: usable: a trigger on "
        guard let line = doctor.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
              let file = line.dropFirst(prefix.count).split(separator: " ").first,
              let memory = cgroupV1Memory
        else { throw BenchError("no memory pressure trigger or no cgroup v1 memory controller here: \(doctor)") }
        let cgroup = memory + "/supervise-bench-pressure-\(getpid())"
        try FileManager.default.createDirectory(atPath: cgroup, withIntermediateDirectories: true)
        defer { rmdir(cgroup) }
        try String(24 << 20).write(toFile: cgroup + "/memory.limit_in_bytes", atomically: false, encoding: .utf8)
        let hog = paths.root.appendingPathComponent("Tests/IntegrationTests/Workers/memory-hog.py").path
        var measured: [String: [Double]] = [:]
        for _ in 0..<count(quick: 3, full: 10) {
            let output = try run([supervise, "--control", "none", "--memory-warnings", "--", "python3",
                                  paths.probes.appendingPathComponent("pressure-child.py").path, String(file), cgroup, hog],
                                 log: scratch("pressure.log"), timeout: 120)
            measured.merge(samples(in: output)) { $0 + $1 }
            // Pressure falls before the next turn, so that each one starts from quiet.
            Thread.sleep(forTimeInterval: 5)
        }
        add("memory pressure → memory-warning read", "supervise, from the kernel's trigger", .nanoseconds,
            measured["pressure-warning"] ?? [], note: "trigger some 150 ms in 2 s on \(file)")
        add("memory pressure → memory-warning read", "the kernel: hog started → trigger fired (floor)", .nanoseconds,
            measured["pressure-trigger"] ?? [], note: "a hog thrashing in 24 MiB of cgroup v1 memory")
    }

    /// Where cgroup v1's memory controller is mounted, if it is and can be written.
    private var cgroupV1Memory: String? {
        FileManager.default.isWritableFile(atPath: "/sys/fs/cgroup/memory/cgroup.procs") ? "/sys/fs/cgroup/memory" : nil
    }
}

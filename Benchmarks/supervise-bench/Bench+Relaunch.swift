import Foundation

extension Bench {
    // MARK: - Relaunch: an event to a reclaimed child, beside a resume and a plain launch

    /// `event` written → the child read it: to a child reclaimed under `--suspended-memory 0`
    /// (a relaunch: spawn, launch events, the event), to a suspended one (a thaw), and the
    /// floor of any launch, posix_spawn → exit of /bin/true.
    mutating func relaunch() throws {
        let cycles = count(quick: 50, full: 300)
        for freezer in freezers() {
            for (parked, options, subject) in [
                ("not-running", ["--suspended-memory", "0"], "relaunch of a reclaimed child"),
                ("suspended", [], "resume of a suspended child"),
            ] {
                let output = try run([paths.probe("driver"), "event", String(cycles), parked, paths.scratch.path, supervise,
                                      "--window", "10", "--freezer", freezer] + options,
                                     environment: ["BENCH_CHILD": paths.probe("child")],
                                     log: scratch("event-\(parked)-\(freezer).log"))
                add("event → child reads it", "supervise (\(freezer)), \(subject)", .nanoseconds,
                    samples(in: output)["event-\(parked)"] ?? [])
            }
        }
        let launches = samples(in: try run([paths.probe("driver"), "startup", String(cycles), "/bin/true"]))
        add("event → child reads it", "posix_spawn → exit of /bin/true (floor)", .nanoseconds, launches["startup"] ?? [],
            note: "a plain launch, without supervise")
    }
}

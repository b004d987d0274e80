import Foundation
import Synchronization

/// Says why a test did not run. Every suite that leaves something out where the machine lacks a backend
/// or a program (a cgroup freezer, `unshare`, nginx, PostgreSQL, …) passes its reason through here, so
/// the log shows `skipped: SUITE: WHAT: REASON` and a green run can't hide what it did not cover.
public enum SkipReason {
    private static let printed = Mutex<Set<String>>([])

    /// Prints the skip once per suite and thing when `reason` is not nil; returns whether it may run
    /// (`reason == nil`), for the `.skip(_:because:in:)` trait and for filtering test arguments.
    @discardableResult
    public static func check(_ reason: String?, skipping what: String, in suite: String) -> Bool {
        guard let reason else { return true }
        let line = "skipped: \(suite): \(what): \(reason)"
        if printed.withLock({ $0.insert(line).inserted }) {
            print(line)
            fflush(nil)  // seen even when the run ends abruptly or output goes to a file
        }
        return false
    }

    /// The elements of `candidates` that can run (no reason from `reason`); prints why each other one is skipped.
    public static func runnable<Element>(_ candidates: [Element], in suite: String,
                                         reason: (Element) -> String?) -> [Element] {
        candidates.filter { check(reason($0), skipping: "\($0)", in: suite) }
    }
}

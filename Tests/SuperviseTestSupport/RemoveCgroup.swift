import Foundation
import Testing

/// Removes the cgroup directory `path`, retrying while its last processes are still leaving (rmdir
/// answers EBUSY until they are gone); one that is already gone counts as removed. When it is still
/// there after `timeout` seconds, records an issue: a test left processes or cgroups behind.
public func removeCgroup(_ path: String, timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation) {
    var failure: Int32 = 0
    let removed = eventually(timeout: timeout, interval: 0.02) {
        if rmdir(path) == 0 || errno == ENOENT { return true }
        failure = errno
        return false
    }
    if !removed {
        Issue.record("cgroup \(path) still there after \(timeout) s: \(String(cString: strerror(failure)))", sourceLocation: sourceLocation)
    }
}

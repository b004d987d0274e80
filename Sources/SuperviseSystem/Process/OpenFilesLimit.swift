import SuperviseSystemCall
import Glibc

/// The supervisor's own open-files limit: raised at start, restored for children.
public enum OpenFilesLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (each child costs the supervisor a few
    /// descriptors) and returns the original limit, to restore in children
    /// (``SpawnRequest/openFilesLimit``). Returns `nil` when nothing was changed.
    public static func raise() -> (soft: UInt64, hard: UInt64)? {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var original = rlimit()
        guard case .success = valueOrErrno({ getrlimit(resource, &original) }), original.rlim_cur < original.rlim_max else {
            return nil
        }
        var raised = original
        raised.rlim_cur = original.rlim_max
        guard case .success = valueOrErrno({ setrlimit(resource, &raised) }) else {
            return nil
        }
        return (soft: UInt64(original.rlim_cur), hard: UInt64(original.rlim_max))
    }
}

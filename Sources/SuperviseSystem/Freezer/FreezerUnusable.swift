import SystemPackage

/// Why a freezer backend can't be used here, as a phrase for the user, and what kind of
/// obstacle that is, for the hint of what to do about it (``hint(for:isRoot:)``).
struct FreezerUnusable: Error, Equatable {
    enum Cause: Equatable {
        /// The hierarchy is mounted, but this user may not write the cgroup (EACCES, EPERM).
        case notPermitted
        /// The cgroup file system is mounted read-only (EROFS), as in an unprivileged container.
        case readOnly
        /// The supervisor's own cgroup lies outside what the mount shows (the host's tree seen
        /// from a private cgroup namespace).
        case notVisible
        /// The cgroup is a systemd service's that the unit did not delegate (``SystemdDelegation``).
        case notDelegated
        /// Anything else: no such hierarchy, no freeze file, a path that is not a cgroup, no `/proc`.
        case other
    }

    var reason: String
    var cause: Cause
    init(_ reason: String, cause: Cause = .other) {
        self.reason = reason
        self.cause = cause
    }

    /// The cause of failing to write a cgroup with `error`.
    static func writeCause(_ error: Errno) -> Cause {
        switch error {
        case .permissionDenied, .notPermitted: .notPermitted
        case .readOnlyFileSystem: .readOnly
        default: .other
        }
    }
}

extension FreezerUnusable {
    /// What to do about it, true for its cause, for `kind` and for who the supervisor runs as
    /// (`isRoot`): "run as root" is no advice to root, and cgroup v1 is never delegated to a user.
    /// Nil when only another freezer helps.
    func hint(for kind: FreezerKind, isRoot: Bool) -> String? {
        switch cause {
        case .notPermitted where !isRoot:
            kind == .cgroup2
                ? "run as root or in a delegated cgroup (systemd-run --user --scope -p Delegate=yes, "
                    + "or a cgroup v2 directory chowned to this user, given as --cgroup-root)"
                : "run as root (cgroup v1 is not delegated to users)"
        case .notPermitted:
            "root may not write it here (a user namespace, or a container's confinement): "
                + "give the container a writable cgroup tree of its own"
        case .readOnly:
            "it is mounted read-only, as in an unprivileged container: mount it read-write (a privileged container)"
        case .notVisible:
            "mount the cgroup tree inside this cgroup namespace, as container runtimes do"
        case .notDelegated:
            "add Delegate=yes to the unit's [Service] section"
        case .other:
            nil
        }
    }
}

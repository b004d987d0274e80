import Testing
@testable import SuperviseSystem

/// A freezer refused gets the hint that is true for why it was refused and for who asked: "run as
/// root" only for a permission a user lacks, delegation only for cgroup v2 (issue 26).
struct FreezerHintTests {
    func refusal(_ kind: FreezerChoice, _ unusable: FreezerUnusable, isRoot: Bool) -> String? {
        let error = #expect(throws: SupervisorError.self) {
            try FreezerSelection.select(kind, isRoot: isRoot) { _ in .failure(unusable) }
        }
        return error?.message
    }

    static let readOnly = FreezerUnusable("cgroup v1 freezer at /sys/fs/cgroup/freezer is not writable: read-only file system",
                                          cause: .readOnly)
    static let denied = FreezerUnusable("cgroup v2 at /sys/fs/cgroup/x is not writable: permission denied", cause: .notPermitted)
    static let delegation = "run as root or in a delegated cgroup (systemd-run --user --scope -p Delegate=yes, "
        + "or a cgroup v2 directory chowned to this user, given as --cgroup-root)"

    @Test func rootRefusedOnAReadOnlyMountIsToldItIsReadOnly() {
        #expect(refusal(.cgroup1, Self.readOnly, isRoot: true)
                == "--freezer cgroup1 can't be used here: \(Self.readOnly.reason); it is mounted read-only, as in an unprivileged "
                + "container: mount it read-write (a privileged container), or use --freezer auto")
    }

    @Test func aUserLackingPermissionIsToldToRunAsRootAndOnlyCgroup2ToDelegate() {
        #expect(refusal(.cgroup2, Self.denied, isRoot: false)
                == "--freezer cgroup2 can't be used here: \(Self.denied.reason); \(Self.delegation), or use --freezer auto")
        let v1 = FreezerUnusable("cgroup v1 freezer at /sys/fs/cgroup/freezer is not writable: permission denied", cause: .notPermitted)
        #expect(refusal(.cgroup1, v1, isRoot: false)
                == "--freezer cgroup1 can't be used here: \(v1.reason); run as root (cgroup v1 is not delegated to users), or use --freezer auto")
    }

    @Test func rootLackingPermissionIsNotToldToRunAsRoot() throws {
        let message = try #require(refusal(.cgroup2, Self.denied, isRoot: true))
        #expect(message.contains("; root may not write it here (a user namespace, or a container's confinement)"), "\(message)")
        #expect(!message.contains("run as root"), "\(message)")
    }

    @Test func whatNoPermissionFixesGetsNoSuchHint() {
        let missing = FreezerUnusable("no cgroup v1 freezer hierarchy is mounted")
        for isRoot in [true, false] {
            #expect(refusal(.cgroup1, missing, isRoot: isRoot)
                    == "--freezer cgroup1 can't be used here: no cgroup v1 freezer hierarchy is mounted; use --freezer auto")
        }
        let hidden = FreezerUnusable("this process's cgroup v2 cgroup / is not visible under /sys/fs/cgroup", cause: .notVisible)
        #expect(refusal(.cgroup2, hidden, isRoot: true)
                == "--freezer cgroup2 can't be used here: \(hidden.reason); mount the cgroup tree inside this cgroup namespace, "
                + "as container runtimes do, or use --freezer auto")
    }

    /// auto goes on to a freezer that works: it hints only at a permission the user could get.
    @Test func autoHintsOnlyAtAPermission() throws {
        let (readOnlyFreezer, readOnlyNotes) = try FreezerSelection.select(.auto, isRoot: false) { _ in .failure(Self.readOnly) }
        #expect(readOnlyFreezer.kind == .sigstop)
        #expect(readOnlyNotes.prefix(2) == ["cgroup2 passed over: \(Self.readOnly.reason)", "cgroup1 passed over: \(Self.readOnly.reason)"])
        let (_, deniedNotes) = try FreezerSelection.select(.auto, isRoot: false) { _ in .failure(Self.denied) }
        #expect(deniedNotes.first == "cgroup2 passed over: \(Self.denied.reason); \(Self.delegation)")
    }
}

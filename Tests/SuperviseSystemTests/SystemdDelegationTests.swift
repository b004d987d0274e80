import Testing
@testable import SuperviseSystem

/// Under a systemd service not given `Delegate=yes`, cgroup v2 is passed over with why; anywhere
/// else the cgroup is judged as before, by whether it can be written (issue 26).
struct SystemdDelegationTests {
    static let directory = "/sys/fs/cgroup/system.slice/worker.service"
    static let id = "9148fd13ee3a4bba840c9371110bdab4"

    func refusal(_ marks: SystemdDelegation.Marks, in directory: String = Self.directory) -> FreezerUnusable? {
        SystemdDelegation.refusal(directory: directory, marks: marks)
    }

    @Test func theServicesOwnCgroupWithoutDelegateIsRefused() throws {
        let refused = try #require(refusal(.init(invocationID: Self.id, delegate: nil)))
        #expect(refused.cause == .notDelegated)
        #expect(refused.reason == "cgroup v2 at \(Self.directory) is a systemd service's cgroup that was not delegated to it "
                + "(no Delegate=yes): systemd owns it, and may move or kill what is made in it")
        #expect(refusal(.init(invocationID: Self.id, delegate: "0")) != nil)
    }

    @Test func aDelegatedServiceKeepsItsCgroup() {
        #expect(refusal(.init(invocationID: Self.id, delegate: "1")) == nil)
    }

    /// A scope or login session (`systemd-run --scope`, ssh), a cgroup below a delegated service's,
    /// and a cgroup systemd did not mark keep today's rules.
    @Test func elsewhereTheRuleDoesNotApply() {
        let marked = SystemdDelegation.Marks(invocationID: Self.id, delegate: nil)
        #expect(refusal(marked, in: "/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope") == nil)
        #expect(refusal(marked, in: "/sys/fs/cgroup/system.slice/run-r1d2.scope") == nil)
        #expect(refusal(.init(invocationID: nil, delegate: nil), in: Self.directory + "/supervise") == nil)
        #expect(refusal(.init(invocationID: nil, delegate: nil)) == nil)
        #expect(refusal(.init(invocationID: "", delegate: nil)) == nil)
    }

    @Test func autoPassesCgroup2OverWithTheHintAndAnExplicitChoiceIsRefused() throws {
        let refused = try #require(refusal(.init(invocationID: Self.id, delegate: nil)))
        let locate: (CgroupVersion) -> Result<CgroupLocation, FreezerUnusable> = { version in
            version == .v2 ? .failure(refused) : .failure(FreezerUnusable("no cgroup v1 freezer hierarchy is mounted"))
        }
        let (freezer, notes) = try FreezerSelection.select(.auto, isRoot: true, locate: locate)
        #expect(freezer.kind == .sigstop)
        #expect(notes.first == "cgroup2 passed over: \(refused.reason); add Delegate=yes to the unit's [Service] section")
        let error = #expect(throws: SupervisorError.self) { try FreezerSelection.select(.cgroup2, isRoot: true, locate: locate) }
        #expect(error?.message == "--freezer cgroup2 can't be used here: \(refused.reason); "
                + "add Delegate=yes to the unit's [Service] section, or use --freezer auto")
    }
}

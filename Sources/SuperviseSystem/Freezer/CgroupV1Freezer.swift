import SuperviseLifecycle
import SuperviseSystemCall
import Glibc
import SystemPackage

/// Freezes each child's cgroup in the cgroup v1 freezer hierarchy with `freezer.state`.
public final class CgroupV1Freezer: Freezer {
    public let kind = FreezerKind.cgroup1
    /// This supervisor's cgroup, which holds one cgroup per child.
    public var directory: String { cgroup.directory }

    private let cgroup: SupervisorCgroup
    private let system: any FreezerSystem
    private var units: [CgroupV1Unit] = []

    /// Creates this supervisor's cgroup below its own freezer cgroup, or says why cgroup v1 can't be used.
    init(location: CgroupLocation, system: any FreezerSystem = LinuxFreezerSystem()) throws(FreezerUnusable) {
        self.system = system
        cgroup = try SupervisorCgroup.forFreezer(in: location, version: .v1Freezer, system: system)
    }

    public func makeUnit(for childName: String) throws(SupervisorError) -> any FreezerUnit {
        let unit = try CgroupV1Unit(directory: cgroup.makeChildDirectory(for: childName), childName: childName,
                                    system: system)
        units.append(unit)
        return unit
    }

    public func removeAll() {
        for unit in units { unit.remove() }
        units.removeAll()
        cgroup.remove()
    }
}

/// One child's cgroup in the cgroup v1 freezer hierarchy.
///
/// v1 has no notification: the supervisor re-checks on a back-off, and each read of
/// `freezer.state` is what moves the cgroup from FREEZING to FROZEN. A frozen v1 task
/// can't act on SIGKILL until it is thawed.
final class CgroupV1Unit: FreezerUnit {
    let kind = FreezerKind.cgroup1
    let directory: String
    let childName: String
    var cgroupPath: String? { directory }
    var placementFD: Int32? { removed ? nil : procsFD }
    let placementDirectoryFD: Int32? = nil
    let notificationFD: Int32? = nil

    private let system: any FreezerSystem
    private let stateFD: Int32
    private let procsFD: Int32
    private var pid: Int32?
    private var removed = false

    /// Opens the files of the cgroup `directory` (already made); on failure removes it again.
    init(directory: String, childName: String, system: any FreezerSystem = LinuxFreezerSystem()) throws(SupervisorError) {
        self.directory = directory
        self.childName = childName
        self.system = system
        var files = try CgroupFileOpener(directory: directory, childName: childName, system: system)
        stateFD = try files.open("freezer.state", O_RDWR)
        procsFD = try files.open("cgroup.procs", O_WRONLY)
        system.close(files.directoryFD)
    }

    func attach(pid: Int32) {
        self.pid = pid
    }

    func requestFreeze() throws(SupervisorError) {
        try write("FROZEN", doing: "freeze")
    }

    func isFrozen() -> Bool {
        switch state() {
        case "FROZEN":
            return true
        case "FREEZING":
            // A task forked while the cgroup was freezing can be missed; each write of
            // FROZEN runs the kernel's freeze over every task again and catches it.
            _ = system.write("FROZEN", to: stateFD)
            return false
        default:
            return false
        }
    }

    func drainNotification() {}

    /// A SIGKILL held back shows in the main process's pending signals; a thaw by someone else
    /// as `freezer.state` reading THAWED. v1 tells neither.
    func outsideChange() -> OutsideChange? {
        if let pid, ProcFS(system).hasKillPending(pid) { return .mainProcessKilled }
        guard state() == "THAWED" else { return nil }
        return .thawed("freezer.state says THAWED")
    }

    @discardableResult
    func thaw() throws(SupervisorError) -> ThawProgress {
        try write("THAWED", doing: "thaw")
        guard waitBriefly(upTo: .seconds(1), until: { state() == "THAWED" }) else {
            throw SupervisorError(.freezer, "could not thaw child \(childName): \(directory)/freezer.state "
                                  + "still says \(state() ?? "nothing") after 1 s")
        }
        return .done
    }

    func signalTree(_ signal: Int32) {
        CgroupTree(system).signalTree(directory, signal)
    }

    /// A frozen process keeps the signal pending until the cgroup is thawed.
    func send(_ signal: Int32, to recipients: SignalRecipients) {
        if !system.kill(recipients, signal) { signalTree(signal) }
    }

    /// SIGKILLs every process, then thaws the cgroup: a frozen v1 task dies only once thawed.
    func killAll() {
        let tree = CgroupTree(system)
        tree.signalEvery(directory)
        for cgroup in tree.directories(directory) {
            _ = system.write("THAWED", toFile: cgroup + "/freezer.state")
        }
    }

    func isEmpty() -> Bool {
        CgroupTree(system).pids(directory).isEmpty
    }

    func resourceUsage() -> ResourceUsage? {
        ProcFS(system).usage(of: CgroupTree(system).pids(directory))
    }

    func remove() {
        guard !removed else { return }
        _ = waitBriefly(upTo: .seconds(1)) {
            killAll()
            return isEmpty()
        }
        removed = true
        system.close(stateFD)
        system.close(procsFD)
        _ = CgroupTree(system).remove(directory)
    }

    /// `freezer.state` read now: THAWED, FREEZING or FROZEN.
    private func state() -> String? {
        guard !removed, let text = try? system.readAll(stateFD).get() else { return nil }
        return String(text.prefix { $0 != "\n" })
    }

    /// Writes `state`; EBUSY means the kernel could not freeze every task yet, which the next read re-tries.
    private func write(_ state: String, doing action: String) throws(SupervisorError) {
        guard !removed else {
            throw SupervisorError(.freezer, "could not \(action) child \(childName): its cgroup was removed")
        }
        switch system.write(state, to: stateFD) {
        case .success, .failure(.resourceBusy): return
        case .failure(let error):
            throw SupervisorError(.freezer, "could not \(action) child \(childName): writing \(state) to "
                                  + "\(directory)/freezer.state failed: \(error.sentenceText)", errno: error.rawValue)
        }
    }
}

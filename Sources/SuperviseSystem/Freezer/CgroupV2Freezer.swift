import SuperviseLifecycle
import SuperviseSystemCall
import Glibc
import SystemPackage

/// Freezes each child's cgroup with cgroup v2's `cgroup.freeze`, the way `systemctl freeze` does.
public final class CgroupV2Freezer: Freezer {
    public let kind = FreezerKind.cgroup2
    /// This supervisor's cgroup, which holds one cgroup per child.
    public var directory: String { cgroup.directory }

    private let cgroup: SupervisorCgroup
    private let system: any FreezerSystem
    private var units: [CgroupV2Unit] = []
    /// One inotify instance for every child's `cgroup.events` (instances are few: 128 a user by default).
    private var inotifyFD: Int32

    /// Creates this supervisor's cgroup below its own, or says why cgroup v2 can't be used.
    init(location: CgroupLocation, system: any FreezerSystem = LinuxFreezerSystem()) throws(FreezerUnusable) {
        self.system = system
        cgroup = try SupervisorCgroup.forFreezer(in: location, version: .v2, system: system)
        switch system.makeInotify() {
        case .success(let fd):
            inotifyFD = fd
        case .failure(let error):
            cgroup.remove()
            throw FreezerUnusable("cgroup v2 freezes can't be watched: inotify: \(error.sentenceText) "
                                  + "(raise fs.inotify.max_user_instances)")
        }
    }

    public func makeUnit(for childName: String) throws(SupervisorError) -> any FreezerUnit {
        let unit = try CgroupV2Unit(directory: cgroup.makeChildDirectory(for: childName), childName: childName,
                                    inotifyFD: inotifyFD, system: system)
        units.append(unit)
        return unit
    }

    public func removeAll() {
        for unit in units { unit.remove() }
        units.removeAll()
        cgroup.remove()
        if inotifyFD >= 0 {
            system.close(inotifyFD)
            inotifyFD = -1
        }
    }
}

/// One child's cgroup v2 cgroup.
final class CgroupV2Unit: FreezerUnit {
    let kind = FreezerKind.cgroup2
    let directory: String
    let childName: String
    var cgroupPath: String? { directory }
    /// Only once `cgroup.kill` was used (see ``placementDirectoryFD``): until then the child is
    /// cloned into the directory, and the spawner opens `cgroup.procs` from it only where
    /// `clone3` fails.
    var placementFD: Int32? { removed || !usedKill ? nil : procsFD }
    /// `nil` once `cgroup.kill` was used: on this kernel (6.18) a child cloned into a cgroup
    /// that was ever killed that way is killed at birth (the kill sequence compared is the
    /// parent's), so the next run is placed by a write to `cgroup.procs` instead.
    var placementDirectoryFD: Int32? { removed || usedKill ? nil : directoryFD }
    var notificationFD: Int32? { removed ? nil : inotifyFD }

    private let system: any FreezerSystem
    private let freezeFD: Int32
    private let eventsFD: Int32
    /// `cgroup.procs`, opened before the first use of `cgroup.kill`; -1 until then.
    private var procsFD: Int32 = -1
    private let directoryFD: Int32
    /// The freezer's shared inotify descriptor, and this unit's watch on it.
    private let inotifyFD: Int32
    private let watch: Int32
    private var pid: Int32?
    private var removed = false
    /// `cgroup.kill` was written (see ``placementDirectoryFD``).
    private var usedKill = false

    /// Opens the files of the cgroup `directory` (already made) and watches its `cgroup.events`
    /// on `inotifyFD`; on failure removes the directory again.
    init(directory: String, childName: String, inotifyFD: Int32,
         system: any FreezerSystem = LinuxFreezerSystem()) throws(SupervisorError) {
        self.directory = directory
        self.childName = childName
        self.system = system
        var files = try CgroupFileOpener(directory: directory, childName: childName, system: system)
        directoryFD = files.directoryFD
        freezeFD = try files.open("cgroup.freeze", O_RDWR)
        eventsFD = try files.open("cgroup.events", O_RDONLY)
        switch system.watchModifications(of: directory + "/cgroup.events", on: inotifyFD) {
        case .success(let watch):
            self.watch = watch
        case .failure(let error):
            throw files.undo("could not watch \(directory)/cgroup.events for child \(childName): "
                             + "\(error.sentenceText); raise fs.inotify.max_user_watches", error)
        }
        self.inotifyFD = inotifyFD
    }

    func attach(pid: Int32) {
        self.pid = pid
    }

    func requestFreeze() throws(SupervisorError) {
        try setFrozen(true)
    }

    func isFrozen() -> Bool {
        event("frozen") == 1
    }

    func drainNotification() {
        guard !removed else { return }
        system.drain(inotifyFD)
    }

    /// A thaw by someone else shows as `cgroup.freeze` reading 0: it reads what was last
    /// written, while `frozen` in `cgroup.events` may also drop for a moment while a task dies
    /// or joins. A frozen v2 task dies of SIGKILL, so no kill is held back.
    func outsideChange() -> OutsideChange? {
        guard !removed, let text = try? system.readAll(freezeFD).get(), text.hasPrefix("0") else { return nil }
        return .thawed("cgroup.freeze says 0")
    }

    @discardableResult
    func thaw() throws(SupervisorError) -> ThawProgress {
        try setFrozen(false)
        // The kernel clears `frozen` as it thaws, so this holds at the first look.
        guard waitBriefly(upTo: .seconds(1), until: { event("frozen") == 0 }) else {
            throw SupervisorError(.freezer, "could not thaw child \(childName): \(directory)/cgroup.events still says frozen 1 after 1 s")
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

    /// `cgroup.kill` where the kernel has it and `cgroup.procs` could be opened for the next
    /// run's placement; else SIGKILL to every process until none is left.
    func killAll() {
        if openPlacementFile(), case .success = system.write("1", toFile: directory + "/cgroup.kill") {
            return usedKill = true
        }
        for _ in 0..<100 {
            if CgroupTree(system).signalEvery(directory) == 0 { return }
            usleep(1_000)
        }
    }

    func isEmpty() -> Bool {
        event("populated") == 0
    }

    func resourceUsage() -> ResourceUsage? {
        guard let stat = try? system.readFile(directory + "/cpu.stat").get(),
              let usec = Self.value(of: "usage_usec", in: stat)
        else { return nil }
        let residentKB: Int
        if let bytes = (try? system.readFile(directory + "/memory.current").get()).flatMap({ Int($0.prefix { $0 != "\n" }) }) {
            residentKB = bytes / 1024
        } else {
            residentKB = ProcFS(system).usage(of: CgroupTree(system).pids(directory)).rssKB
        }
        return ResourceUsage(rssKB: residentKB, cpuMS: Double(usec) / 1000)
    }

    func remove() {
        guard !removed else { return }
        killAll()
        _ = system.write("0", to: freezeFD)
        _ = waitBriefly(upTo: .seconds(1), until: isEmpty)
        removed = true
        system.removeWatch(watch, from: inotifyFD)
        for fd in [freezeFD, eventsFD, procsFD, directoryFD] where fd >= 0 { system.close(fd) }
        _ = CgroupTree(system).remove(directory)
    }

    /// Opens `cgroup.procs` once; whether it is open.
    private func openPlacementFile() -> Bool {
        if procsFD < 0, case .success(let fd) = system.open("cgroup.procs", in: directoryFD, O_WRONLY) {
            procsFD = fd
        }
        return procsFD >= 0
    }

    private func setFrozen(_ frozen: Bool) throws(SupervisorError) {
        guard !removed else {
            throw SupervisorError(.freezer, "could not \(frozen ? "freeze" : "thaw") child \(childName): its cgroup was removed")
        }
        if case .failure(let error) = system.write(frozen ? "1" : "0", to: freezeFD) {
            throw SupervisorError(.freezer, "could not \(frozen ? "freeze" : "thaw") child \(childName): writing "
                                  + "\(directory)/cgroup.freeze failed: \(error.sentenceText)", errno: error.rawValue)
        }
    }

    /// A value of `cgroup.events` read now, or `nil` if it can't be read.
    private func event(_ key: String) -> Int? {
        guard !removed, let text = try? system.readAll(eventsFD).get() else { return nil }
        return Self.value(of: key, in: text)
    }

    /// The number after `key ` in a `key value` per line file (`cgroup.events`, `cpu.stat`).
    static func value(of key: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == key { return Int(fields[1]) }
        }
        return nil
    }
}

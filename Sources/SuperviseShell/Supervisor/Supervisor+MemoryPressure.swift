import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// With `--memory-warnings` or `--reclaim-on-pressure`, arms the memory pressure trigger (``MemoryPressureFile``) and watches its descriptor:
    /// the kernel wakes the loop when tasks stall on memory, so an idle supervisor makes no
    /// system call for it. Where the kernel can't, says so once; the memory budget still works.
    func watchMemoryPressure() {
        let settings = memoryPressure.settings
        guard settings.isWatched else { return }
        switch MemoryPressureFile.trigger(stall: settings.stall, window: settings.window) {
        case .failure(let unwatched):
            let reclaim = settings.reclaimLevel == nil ? "" : "; --reclaim-on-pressure can't act"
            logger.notice("memory pressure is not watched (\(unwatched.reason)): no memory warnings\(reclaim)")
        case .success(let (trigger, path)):
            let now = MonotonicClock.now()
            if let stall = trigger.read() { memoryPressure.armed(stall, at: now) }
            pressureTrigger = trigger
            loop.add(trigger.descriptor, events: EventLoop.priority) { [unowned self] events in
                self.memoryPressureFired(events)
            }
            logger.info("memory pressure watched on \(path): some \(settings.stall.formatted) stalled in \(settings.window.formatted)")
        }
    }

    /// The trigger fired: read the figures and carry out what the pressure rules decide.
    private func memoryPressureFired(_ events: UInt32) {
        guard let trigger = pressureTrigger else { return }
        guard events & EventLoop.closed == 0, let stall = trigger.read() else {
            // The file went away (its cgroup was removed) or can't be read: the trigger is dead.
            loop.remove(trigger.descriptor)
            pressureTrigger = nil
            logger.warning("memory pressure is no longer watched: the pressure file can't be read")
            return
        }
        let now = MonotonicClock.now()
        perform(memoryPressure.fired(stall, at: now, candidates: reclaimCandidates()), at: now)
    }

    /// Lets the pressure ease and a reclaim's pause end, when their time has come.
    func tickMemoryPressure() {
        let now = MonotonicClock.now()
        guard let deadline = memoryPressure.nextDeadline, deadline <= now else { return }
        perform(memoryPressure.tick(at: now, candidates: reclaimCandidates()), at: now)
    }

    private func perform(_ actions: [MemoryPressure.Action], at now: Instant) {
        for action in actions {
            switch action {
            case .log(let text):
                logger.notice("\(text)")
            case .level(let level):
                for child in children { child.handle(.memoryPressure(level), at: now) }
            case .reclaim(let order, let reason):
                reclaim(children[order], reason: reason, at: now)
            }
        }
    }
}

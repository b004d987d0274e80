import SuperviseLifecycle
import SuperviseSystem

/// Whether memory pressure is watched, on which file, or why not.
enum PressureWatch {
    /// Neither `--memory-warnings` nor `--reclaim-on-pressure`.
    case off
    case watched(PressureTrigger, file: String)
    case unwatched(String)
}

extension Supervisor {
    /// With `--memory-warnings` or `--reclaim-on-pressure`, arms the memory pressure trigger
    /// (``MemoryPressureFile``) and watches its descriptor: the kernel wakes the loop when tasks
    /// stall on memory, so an idle supervisor makes no system call for it. Where the kernel
    /// can't, says so once; the memory budget still works.
    func watchMemoryPressure() {
        let settings = memoryPressure.settings
        guard settings.isWatched else { return }
        switch MemoryPressureFile.trigger(stall: settings.stall, window: settings.window) {
        case .failure(let unwatched):
            pressureWatch = .unwatched(unwatched.reason)
            let reclaim = settings.reclaimLevel == nil ? "" : "; --reclaim-on-pressure can't act"
            logger.notice("memory pressure is not watched (\(unwatched.reason)): no memory warnings\(reclaim)")
        case .success(let (trigger, path)):
            let now = MonotonicClock.now()
            if let stall = trigger.read() { memoryPressure.armed(stall, at: now) }
            pressureWatch = .watched(trigger, file: path)
            loop.add(trigger.descriptor, events: EventLoop.priority) { [unowned self] events in
                self.memoryPressureFired(events)
            }
            logger.info("memory pressure watched on \(path): some \(settings.stall.formatted) stalled in \(settings.window.formatted)")
        }
    }

    /// The trigger fired: read the figures and carry out what the pressure rules decide.
    private func memoryPressureFired(_ events: UInt32) {
        guard case .watched(let trigger, _) = pressureWatch else { return }
        guard events & EventLoop.closed == 0, let stall = trigger.read() else {
            // The file went away (its cgroup was removed) or can't be read: the trigger is dead.
            loop.remove(trigger.descriptor)
            pressureWatch = .unwatched("the pressure file could no longer be read")
            logger.warning("memory pressure is no longer watched: the pressure file can't be read")
            return
        }
        let now = MonotonicClock.now()
        perform(memoryPressure.fired(stall, at: now, candidates: RunCore.reclaimCandidates(runChildren)), at: now)
    }

    /// Lets the pressure ease and a reclaim's pause end, when their time has come.
    func tickMemoryPressure() {
        let now = MonotonicClock.now()
        guard let deadline = memoryPressure.nextDeadline, deadline <= now else { return }
        perform(memoryPressure.tick(at: now, candidates: RunCore.reclaimCandidates(runChildren)), at: now)
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

    /// The report's `memory_pressure`: null when not asked for; else where it was watched (or
    /// why not), the settings, and every change of level with its figures.
    func memoryPressureJSON() -> JSONValue {
        let settings = memoryPressure.settings
        let (file, notWatched): (String?, String?) = switch pressureWatch {
        case .off: (nil, nil)
        case .watched(_, let file): (file, nil)
        case .unwatched(let why): (nil, why)
        }
        guard settings.isWatched else { return .null }
        return .object([
            ("file", .string(file)),
            ("not_watched", .string(notWatched)),
            ("trigger", .string("some \(settings.stall.formatted) \(settings.window.formatted)")),
            ("low_percent", .double(settings.lowPercent)),
            ("critical_percent", .double(settings.criticalPercent)),
            ("reclaim_level", .string(settings.reclaimLevel?.rawValue)),
            ("reclaim_pause_ms", .double(Double(settings.reclaimPause.nanoseconds) / 1_000_000)),
            ("changes", .array(memoryPressure.changes.elements.map { change in
                .object([("t_ms", .double(change.at.milliseconds(since: origin))), ("level", .string(change.level.rawValue)),
                         ("why", .string(change.why))])
            })),
            ("changes_not_recorded", .int(Int64(memoryPressure.changes.omitted))),
        ])
    }
}

import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// Makes the child's freezer unit, and starts its first run if the run core says so
    /// (``RunInput/joined(child:_:)``: not for a child with `autostart` false).
    func launch(_ spec: ChildSpec) {
        let now = MonotonicClock.now()
        let unit: any FreezerUnit
        do {
            unit = try freezers[spec.freezer]!.makeUnit(for: spec.name)
        } catch {
            return perform(core.handle(.unitFailed(name: spec.name, message: error.message)))
        }
        let child = SupervisedChild(spec: spec, unit: unit, loop: loop, origin: origin, logger: logger)
        children.append(child)
        perform(core.handle(.joined(child: children.count - 1, runChild(child))), at: now)
    }

    /// Spawns one run of `child` into its freezer unit, with fresh pipes, and sends the launch events.
    func start(_ child: SupervisedChild, at now: Instant) {
        let spec = child.spec
        do throws(SupervisorError) {
            let output = options.prefixOutput && specs.count > 1
                ? try OutputForwarder(name: spec.name, width: outputPrefixWidth, loop: loop)
                : nil
            let channels = try ProtocolChannels()
            let request = SpawnRequest(
                arguments: spec.command,
                environment: RunCore.environment(of: spec.name, own: spec.environment,
                                                 inherited: CurrentProcess.environment),
                workingDirectory: spec.workingDirectory,
                stdin: options.control == .stdin ? devNull : 0,
                stdout: output?.childEnds.stdout ?? 1,
                stderr: output?.childEnds.stderr ?? 2,
                eventsFD: channels.eventsRead,
                requestsFD: channels.requestsWrite,
                cgroupProcsFD: child.unit.placementFD,
                cgroupDirectoryFD: child.unit.placementDirectoryFD,
                takeTerminal: handsTerminalOver,
                pidVariable: "SUPERVISE_PID",
                openFilesLimit: openFilesLimit,
                privileges: spec.privileges,
                ignoredSignals: options.signalTable.leftIgnored)
            let pid: Int32
            do throws(SupervisorError) {
                pid = try Spawner.spawn(request)
            } catch {
                channels.closeChildEnds()
                channels.closeSupervisorEnds()
                output?.start()
                output?.finish()
                throw error
            }
            channels.closeChildEnds()
            if request.takeTerminal { launchedWithTerminal(pid) }
            output?.start()
            child.output = output
            child.unit.attach(pid: pid)
            started(child, pid: pid, channels: channels, at: now)
        } catch {
            child.recordSpawnFailure(error, at: now)
            let commandStatus: Int32? = if case .spawn(let status) = error.code { status } else { nil }
            guard let place = children.firstIndex(where: { $0 === child }) else { return }
            perform(core.handle(.spawnFailed(child: place, name: child.name, commandStatus: commandStatus,
                                             message: error.message)), at: now)
        }
    }

    private func started(_ child: SupervisedChild, pid: Int32, channels: ProtocolChannels, at now: Instant) {
        let writer = EventWriter(fd: channels.eventsWrite, maxOpenTasks: child.spec.settings.maxOpenTasks)
        let reader = RequestReader(fd: channels.requestsRead, buffer: readBuffer)
        child.started(pid: pid, writer: writer, reader: reader, at: now)
        childrenByPID[pid] = child
        loop.add(reader.fd) { [unowned child] _ in
            child.readRequests(upTo: 64 * 1024, at: MonotonicClock.now())
        }
        loop.add(writer.fd, events: 0) { [unowned writer] events in writer.flush(events) }
        writer.onFirstEventLost = { [unowned child] in
            // An unaware child (it never said hello) is not listening: its exit closing the pipe
            // before an event reached it is not news.
            guard child.lifecycle.aware else { return }
            let text = "the child closed its events channel (fd 3): events no longer reach it"
            child.record(.note, text, at: MonotonicClock.now())
            child.logger.notice("\(text)")
        }
        writer.onBacklogChange = { [unowned self, unowned child, unowned writer, unowned reader] change in
            switch change {
            case .formed:
                self.loop.modify(writer.fd, events: EventLoop.writable)
            case .full:
                self.loop.modify(reader.fd, events: 0)
                let text = "over \(writer.fullAt) bytes of events unread: not reading requests until the child reads them"
                child.record(.note, text, at: MonotonicClock.now())
                child.logger.notice("\(text)")
            case .drained:
                self.loop.modify(writer.fd, events: 0)
                self.loop.modify(reader.fd, events: EventLoop.readable)
            }
        }
        if let notification = child.unit.notificationFD, !watchedNotifications.contains(notification) {
            // Units of one freezer may share a descriptor: a wake-up re-checks every child on it.
            watchedNotifications.insert(notification)
            loop.add(notification) { [unowned self, unowned child] _ in
                child.unit.drainNotification()
                let now = MonotonicClock.now()
                for other in self.children where other.unit.notificationFD == notification {
                    other.handle(.freezerNotified, at: now)
                }
            }
        }
        child.logger.info("started pid \(pid) (\(child.unit.kind.rawValue))")
        child.handle(.launched, at: now)
    }
}

extension ChildLifecycle {
    /// The process was spawned: the launch events, as `launch` says, or for an event. A child
    /// expected to be aware (`--aware`) stays launching until its `hello`, under the launch
    /// timeout: its events wait in the pipe meanwhile.
    mutating func launch(_ now: Instant) {
        guard state == .launching, launchedAt == nil else { return }
        launchedAt = now
        announceLaunch()
        if settings.aware && !saidHello {
            launchDeadline = now + settings.launchTimeout
        } else {
            finishLaunching(now)
        }
    }

    /// Whether this run is launched and waits for the `hello` of a child expected to be aware.
    var isWaitingForHello: Bool { state == .launching && launchDeadline != nil }

    /// `did-finish-launching` and the events of the state it launches into; a launch for an
    /// event delivers its first event with the first background entry.
    private mutating func announceLaunch() {
        if let task = launchTask {
            actions.append(.note("launched for scheduled task \(task.id)"))
            send(.didFinishLaunching(.background, reclaimed: afterReclaim))
            return announceBackgroundEntry(task: task)
        }
        if launchedForEvent {
            let event = launchEvents[0]
            actions.append(.note("launched for event \(event.kind)"))
            send(.didFinishLaunching(.background, reclaimed: afterReclaim))
            return announceBackgroundEntry(event: event)
        }
        switch settings.launch {
        case .foreground:
            send(.didFinishLaunching(.foreground))
            send(.didBecomeActive)
        case .background:
            send(.didFinishLaunching(.background))
            announceBackgroundEntry()
        }
    }

    /// The launched child enters the state it was launched into: the window and limit of a
    /// launch into the background start now. The events queued behind a launch for an event's
    /// own follow, each as an event to a child in the background.
    mutating func finishLaunching(_ now: Instant) {
        launchDeadline = nil
        if let task = launchTask {
            launchTask = nil
            return beginScheduledTaskEntry(task, now)
        }
        guard launchedForEvent || settings.launch == .background else { return setState(.active) }
        startBackgroundEntry(now)
        let events = launchEvents.dropFirst(launchedForEvent ? 1 : 0)
        launchEvents.removeAll()
        for event in events { resumeForEvent(kind: event.kind, text: event.text, now) }
    }

    /// No `hello` within the launch timeout: killed, as iOS's launch watchdog does.
    mutating func launchTimedOut(_ now: Instant) {
        launchDeadline = nil
        launchEvents.removeAll()
        killForViolation(.launch, now)
    }

    /// Whether this run is launching to deliver an event.
    var isLaunchingForEvent: Bool { state == .launching && launchedForEvent }

    /// An event for a child launching for an event waits for the launch (and the `hello` of a
    /// child expected to be aware), in order, up to ``launchQueueLimit`` events.
    mutating func queueForLaunch(kind: String, text: String?) {
        guard launchEvents.count < Self.launchQueueLimit else {
            return actions.append(.refuse("cannot deliver event '\(kind)': \(Self.launchQueueLimit) events already "
                + "wait for the child's launch"))
        }
        launchEvents.append((kind, text))
    }
}

extension ChildLifecycle {
    /// The process was spawned: the launch events, as `launch` says, or for an event.
    mutating func launch(_ now: Instant) {
        guard state == .launching else { return }
        launchedAt = now
        guard launchEvents.isEmpty else { return launchForEvents(now) }
        switch settings.launch {
        case .foreground:
            send(.didFinishLaunching(.foreground))
            send(.didBecomeActive)
            setState(.active)
        case .background:
            send(.didFinishLaunching(.background))
            enterBackground(now)
        }
    }

    /// Launched into the background for its first event, which comes with the first entry;
    /// the events queued behind it follow, each as an event to a child in the background.
    private mutating func launchForEvents(_ now: Instant) {
        let events = launchEvents
        launchEvents.removeAll()
        actions.append(.note("launched for event \(events[0].kind)"))
        send(.didFinishLaunching(.background, reclaimed: afterReclaim))
        enterBackground(now, event: events[0])
        for event in events.dropFirst() { resumeForEvent(kind: event.kind, text: event.text, now) }
    }

    /// Whether this run is launching to deliver an event.
    var isLaunchingForEvent: Bool { state == .launching && !launchEvents.isEmpty }

    /// An event for a child launching for an event waits for the launch, in order, up to
    /// ``launchQueueLimit`` events.
    mutating func queueForLaunch(kind: String, text: String?) {
        guard launchEvents.count < Self.launchQueueLimit else {
            return actions.append(.refuse("cannot deliver event '\(kind)': \(Self.launchQueueLimit) events already "
                + "wait for the child's launch"))
        }
        launchEvents.append((kind, text))
    }
}

extension ChildLifecycle {
    /// `background`: from the foreground only; a no-op when already in the background.
    mutating func moveToBackground(_ now: Instant) {
        switch state {
        case .active:
            if let refusal = unreadRefusal("cannot move to the background", over: Self.unreadLifecycleEventsLimit) {
                return actions.append(refusal)
            }
            send(.willResignActive)
            enterBackground(now)
        case .background, .suspending, .suspended:
            break
        case .launching, .terminating, .exited, .notRunning:
            actions.append(.refuse("cannot move to the background: the child is \(stateForRefusal)"))
        }
    }

    /// `foreground`: stops the background timers, thaws if needed, continues a child stopped
    /// by a signal; open tasks stay open.
    mutating func moveToForeground(_ now: Instant) {
        if state.isOutOfForeground,
           let refusal = unreadRefusal("cannot bring to the foreground", over: Self.unreadLifecycleEventsLimit) {
            return actions.append(refusal)
        }
        switch state {
        case .active:
            continueIfStopped()
        case .background:
            continueIfStopped()
            returnToForeground()
        case .suspending, .suspended:
            thaw()
            returnToForeground()
        case .launching, .terminating, .exited, .notRunning:
            actions.append(.refuse("cannot bring to the foreground: the child is \(stateForRefusal)"))
        }
    }

    private mutating func returnToForeground() {
        if windowEnd != nil { closeFirstWindow() }
        clearBackgroundTimers()
        send(.willEnterForeground)
        send(.didBecomeActive)
        setState(.active)
    }

    /// `event KIND [TEXT]`: a new background entry with the event, thawing first if needed;
    /// queued behind a launch for an event. (An exited or not-running child is launched for
    /// it by ``ChildCore``.)
    /// Refused while more than ``unreadEventsLimit`` bytes of events wait unread.
    mutating func resumeForEvent(kind: String, text: String?, _ now: Instant) {
        if state.isOutOfForeground, let refusal = unreadRefusal("cannot deliver event '\(kind)'", over: Self.unreadEventsLimit) {
            return actions.append(refusal)
        }
        switch state {
        case .background:
            continueIfStopped()
            enterBackground(now, event: (kind, text))
        case .suspending, .suspended:
            thaw()
            enterBackground(now, event: (kind, text))
        case .active:
            actions.append(.refuse("cannot deliver event '\(kind)': the child is in the foreground"))
        case .launching where isLaunchingForEvent:
            queueForLaunch(kind: kind, text: text)
        case .launching, .terminating, .exited, .notRunning:
            actions.append(.refuse("cannot deliver event '\(kind)': the child is \(stateForRefusal)"))
        }
    }

    /// More than ``unreadLifecycleEventsLimit`` bytes of events wait unread.
    var isOverLifecycleEventsLimit: Bool { unreadEventBytes > Self.unreadLifecycleEventsLimit }

    /// The refusal of a command, `what` ("cannot …"), while more than `limit` bytes of events
    /// wait unread; `nil` under it.
    func unreadRefusal(_ what: String, over limit: Int) -> LifecycleAction? {
        guard unreadEventBytes > limit else { return nil }
        let size = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"
        return .refuse("\(what): over \(size) of events wait unread (the child is not reading fd 3)")
    }

    /// The state as a refusal names it: an aware child launching is waiting for its `hello`.
    private var stateForRefusal: String {
        isWaitingForHello ? "launching (no hello yet)" : state.rawValue
    }

    /// `terminate`: stop the timers, thaw, tell (aware) or signal (unaware), and start the grace.
    /// A child expected to be aware is told even before its `hello`: the pipe holds the event.
    mutating func terminate(escalate: Bool, _ now: Instant) {
        switch state {
        case .terminating:
            guard escalate, termination == .terminate else { return }
            graceEnd = nil
            termination = .kill
            actions.append(.killTree)
        case .exited, .notRunning:
            break
        case .suspending, .suspended:
            thaw()
            startGrace(now)
        case .launching, .active, .background:
            startGrace(now)
        }
    }

    private mutating func startGrace(_ now: Instant) {
        if windowEnd != nil { closeFirstWindow() }
        clearBackgroundTimers()
        launchDeadline = nil
        termination = .terminate
        graceEnd = now + settings.grace
        continueIfStopped()
        setState(.terminating)
        if aware || settings.aware {
            send(.willTerminate(graceMS: settings.grace.wholeMilliseconds))
            expireOpenTasks(now)
        } else {
            actions.append(.signalTree(settings.stopSignal))
        }
    }

    /// Thaws a suspending or suspended child, and continues it if a signal stopped it; a
    /// pending freeze verification is abandoned. Whether the thaw goes on, the freezer says.
    mutating func thaw() {
        thawAgainAt = nil
        freezeDeadline = nil
        freezeRecheckAt = nil
        freezeRequestedAt = nil
        actions.append(.thaw)
        continueIfStopped()
    }
}

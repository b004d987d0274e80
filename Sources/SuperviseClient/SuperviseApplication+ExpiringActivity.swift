import Synchronization

extension SuperviseApplication {
    /// Runs `block` on a new thread while holding a background task, as
    /// `ProcessInfo.performExpiringActivity(withReason:using:)`.
    ///
    /// `block` runs with `expired == false`; the task ends when it returns. If the time is
    /// up before then, or no task could be had (the supervisor refused it or is gone),
    /// `block` is called once more, on another thread, with `expired == true`: it should
    /// make the first call return quickly. When not supervised, nothing limits the process,
    /// and `block` only runs with `false`.
    public func performExpiringActivity(
        withReason reason: String,
        using block: @escaping @Sendable (_ expired: Bool) -> Void
    ) {
        let activity = ExpiringActivity(block)
        let identifier = beginBackgroundTask(withName: reason) { activity.expire() }
        // Expired before the first call starts: once started, it could return and finish the
        // activity before an expiry here, and the call with `true` would never come.
        if identifier == .invalid, isSupervised { activity.expire() }
        DetachedThread.start { [self] in
            block(false)
            activity.finish()
            endBackgroundTask(identifier)
        }
    }
}

/// The two calls of an expiring activity's block.
private final class ExpiringActivity: Sendable {
    private enum Phase { case running, expired, finished }

    private let block: @Sendable (_ expired: Bool) -> Void
    private let phase = Mutex(Phase.running)

    init(_ block: @escaping @Sendable (_ expired: Bool) -> Void) {
        self.block = block
    }

    /// Calls the block with `true` on a new thread, once, if its first call is still running.
    func expire() {
        let shouldCall = phase.withLock { phase in
            guard phase == .running else { return false }
            phase = .expired
            return true
        }
        if shouldCall { DetachedThread.start { [block] in block(true) } }
    }

    /// The first call returned: an expiry from now on has nothing to stop.
    func finish() {
        phase.withLock { phase in
            if phase == .running { phase = .finished }
        }
    }
}

extension ChildLifecycle {
    /// Someone else thawed the suspended child. The user asked for it suspended, so it is frozen
    /// again, and verified again, rather than reported as running. Elsewhere it changes nothing:
    /// the state already says the child runs, or the freeze timeout judges a freeze under way.
    mutating func thawedFromOutside(seen: String, _ now: Instant) {
        guard state == .suspended else { return }
        actions.append(.note("thawed from outside (\(seen)): freezing it again"))
        beginSuspending(now)
    }

    /// The suspended child's main process was sent SIGKILL, which its freeze holds back. It can
    /// do nothing but die, so it is thawed to die now, and is terminating until it is reaped.
    mutating func killedWhileFrozen() {
        guard state == .suspended else { return }
        thaw()
        actions.append(.note("its main process was sent SIGKILL from outside while frozen: thawed so that it can die"))
        setState(.terminating)
    }
}

extension ChildLifecycle {
    /// Reclaim: kills the suspended child's whole tree without notice, and thaws its freezer
    /// so that the next run starts thawed; once reaped it is `not-running`.
    mutating func reclaim() {
        guard state == .suspended else { return }
        termination = .reclaim
        setState(.terminating)
        actions.append(.killTree)
        thaw()
    }
}

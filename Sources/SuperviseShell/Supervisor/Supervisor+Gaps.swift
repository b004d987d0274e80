import SuperviseLifecycle

extension Supervisor {
    /// How many gaps are kept at each end of a run.
    static let gapLimit = 100

    /// The loop woke long after its timer, or the supervisor was continued after a stop of its
    /// job (`stoppedAsJob`: Ctrl-Z, then `fg`) (docs/protocol.md, "Time the supervisor did not
    /// run"): says so once, records it, and moves every child's deadlines, and the timeout of
    /// every `wait` held, by it before anything else is decided.
    func supervisorWasAway(_ gap: SupervisorGap, stoppedAsJob: Bool = false) {
        if stoppedAsJob {
            logger.notice("continued after \(gap.length.formatted) stopped with its job: the children's deadlines move by it")
        } else {
            logger.warning("""
                the supervisor was not running for up to \(gap.length.formatted) (its timer fired \(gap.late.formatted) \
                late): the children's deadlines move by \(gap.length.formatted)
                """)
        }
        supervisorGaps.append(gap)
        for child in children { child.supervisorWasAway(for: gap.length, at: gap.at) }
        commands?.hold = commands?.hold?.moved(by: gap.length)
        for client in control?.holdingClients ?? [] { client.hold = client.hold?.moved(by: gap.length) }
    }

    /// The gaps for the report: when the supervisor ran again, how long it had not, how late its timer was.
    func supervisorGapsJSON() -> JSONValue {
        func ms(_ duration: Duration) -> JSONValue { .double(Double(duration.nanoseconds) / 1_000_000) }
        return .array(supervisorGaps.elements.map { gap in
            .object([("at_ms", .double(gap.at.milliseconds(since: origin))), ("gap_ms", ms(gap.length)),
                     ("late_ms", ms(gap.late))])
        })
    }
}

/// Commands for the run's children, and what the run refuses once it is ending (docs/cli.md,
/// "End of input, and the end of the run").
extension RunCore {
    /// `input`, a command for `child` (at `place`): handed to the child's core, after wrapping up
    /// its last run when the command launches the next. A command that would launch a child that
    /// has exited is refused once the run is ending: nothing is left to keep it up.
    public func command(_ input: LifecycleInput, to child: RunChild, at place: Int,
                        runIsEnding: @autoclosure () -> Bool) -> [RunAction] {
        guard input.launches, child.status.isFinished else { return [.feed(child: place, input)] }
        if runIsEnding() {
            let act = switch input {
            case .event: "cannot deliver event"
            case .runTask: "cannot run the task"
            default: "cannot start"
            }
            return [.refuse("\(child.name): \(act): every child has exited and the run is ending (--keep-running keeps it up)")]
        }
        // Its last run is over: wrapped up before the command starts the next one.
        return child.wrappedUp ? [.feed(child: place, input)] : [.wrapUp(child: place), .feed(child: place, input)]
    }
}

extension LifecycleInput {
    /// A command that launches a child without a process: `start`, `restart`, `event`, `run-task`.
    var launches: Bool {
        switch self {
        case .start, .restart, .event, .runTask: true
        default: false
        }
    }
}

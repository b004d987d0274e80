/// A sigstop thaw as steps (``SignalStopUnit/thaw()``): a SIGCONT to each process the freeze
/// stopped, the main process first, then a look at each to verify that it runs again. A large
/// tree's thaw takes several turns of the loop, a turn's share of the steps each
/// (``SliceBudget``).
struct ThawWalk {
    enum Step: Equatable {
        /// Send SIGCONT to it, unless its pid now names another process.
        case continueProcess(ProcessIdentity)
        /// Look whether it is still stopped.
        case verify(ProcessIdentity)
    }

    /// Still to be continued, the next one last.
    private var toContinue: [ProcessIdentity]
    /// Continued, still to be looked at, the next one last.
    private var toVerify: [ProcessIdentity] = []
    /// Those a look found still stopped after their SIGCONT.
    private(set) var stillStopped: [ProcessIdentity] = []

    /// The thaw of `stopped`, whose main process (if it is one of them) is continued first: the
    /// events that go with a thaw are its to read.
    init(stopped: Set<ProcessIdentity>, main: ProcessIdentity?) {
        toContinue = stopped.filter { $0 != main }
        if let main, stopped.contains(main) { toContinue.append(main) }
    }

    /// Every step is taken.
    var isDone: Bool { toContinue.isEmpty && toVerify.isEmpty }

    /// The next step: the continues first, then the looks; `nil` once done.
    mutating func nextStep() -> Step? {
        if let process = toContinue.popLast() {
            toVerify.append(process)
            return .continueProcess(process)
        }
        return toVerify.popLast().map(Step.verify)
    }

    /// The look at `process` found it still stopped.
    mutating func foundStillStopped(_ process: ProcessIdentity) {
        stillStopped.append(process)
    }
}

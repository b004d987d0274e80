import SuperviseSystemCall
import Glibc
import SuperviseProtocol

extension SuperviseApplication {
    /// How many events wait for the first ``events()`` stream; after that many, none do.
    private static let backlogLimit = 256

    /// The reader thread: reads events until end of file, then acts as on `will-terminate 0`.
    func readEvents(from fd: Int32) {
        var splitter = LineSplitter()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { buffer.deallocate() }
        // A `did-enter-background` whose `event` may still be on its way in the next read.
        var entryAwaitingEvent: UInt64?
        while true {
            guard case .success(let count) = valueOrErrno({ read(fd, buffer.baseAddress, buffer.count) }), count > 0
            else { break }
            let readAt = MonotonicClock.now()
            splitter.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            while let line = splitter.next() {
                guard case .line(let bytes) = line, let event = Event(line: bytes) else { continue }
                // The entry whose `event` or `task` this line is, completed once it is handled.
                var entryOfLine: UInt64?
                if let seq = entryAwaitingEvent {
                    entryAwaitingEvent = nil
                    if Self.isEvent(event, ofEntry: seq) { entryOfLine = seq } else { completeAutomatically(seq) }
                }
                deliver(event, readAt: readAt)
                switch event {
                case .didEnterBackground(let seq, _, _): entryAwaitingEvent = seq
                case .event(let seq, _, _): completeAutomatically(seq)
                case .task: if let entryOfLine { completeAutomatically(entryOfLine) }
                default: break
                }
            }
            // The supervisor writes `did-enter-background` and its `event` in one write, so
            // the event can only be missing from this read if a line is still partial.
            if let seq = entryAwaitingEvent, !splitter.hasPartialLine {
                entryAwaitingEvent = nil
                completeAutomatically(seq)
            }
        }
        close(fd)
        disconnect()
    }

    /// True for the `event` of entry `seq`, or a `task`, which follows its entry's line.
    private static func isEvent(_ event: Event, ofEntry seq: UInt64) -> Bool {
        switch event {
        case .event(seq, _, _), .task: true
        default: false
        }
    }

    /// Applies `event` to the state, then runs the expiration handler it calls for, feeds
    /// the streams, and calls the delegate and, for a `task`, its launch handler.
    private func deliver(_ event: Event, readAt: UInt64) {
        let (delegate, streams, expirationHandler) = state.withLock { state in
            apply(event, readAt: readAt, to: &state)
        }
        expirationHandler?()
        if case .expire(let id) = event { taskScheduler.expirationHandler(for: id)?() }
        for stream in streams { stream.yield(event) }
        delegate?.application(self, didReceive: event)
        if case .task(let id, let kind, let limitMS) = event { taskScheduler.launch(id, kind: kind, limitMS: limitMS) }
        guard let delegate else { return }
        switch event {
        case .didFinishLaunching(let launchState, _): delegate.application(self, didFinishLaunchingIn: launchState)
        case .didBecomeActive: delegate.applicationDidBecomeActive(self)
        case .willResignActive: delegate.applicationWillResignActive(self)
        case .didEnterBackground: delegate.applicationDidEnterBackground(self)
        case .event(_, let kind, let text): delegate.application(self, handleEventOfKind: kind, text: text)
        case .willEnterForeground: delegate.applicationWillEnterForeground(self)
        case .willTerminate(let graceMS): delegate.applicationWillTerminate(self, grace: .milliseconds(graceMS))
        case .error(let error): delegate.application(self, didReceive: error)
        case .memoryWarning(let level): delegate.applicationDidReceiveMemoryWarning(self, level: level)
        case .expire, .task: break
        }
    }

    private func apply(
        _ event: Event, readAt: UInt64, to state: inout State
    ) -> ((any SuperviseApplicationDelegate)?, [AsyncStream<Event>.Continuation], (@Sendable () -> Void)?) {
        var expirationHandler: (@Sendable () -> Void)?
        switch event {
        case .didFinishLaunching(.foreground, let reclaimed):
            state.applicationState = .inactive
            state.backgroundEntry = nil
            state.wasReclaimed = reclaimed
        case .willResignActive, .willEnterForeground:
            state.applicationState = .inactive
            state.backgroundEntry = nil
        case .didFinishLaunching(.background, let reclaimed):
            state.applicationState = .background
            state.wasReclaimed = reclaimed
        case .didBecomeActive:
            state.applicationState = .active
            state.backgroundEntry = nil
        case .didEnterBackground(_, _, let limitMS):
            state.applicationState = .background
            state.backgroundEntry = (readAt, limitMS)
        case .expire(let id):
            if let number = Int(id.rawValue), let handler = state.expirationHandlers[number] {
                expirationHandler = handler
                state.expirationHandlers.updateValue(nil, forKey: number)
            }
        case .event, .task, .willTerminate, .error, .memoryWarning:
            break
        }
        if state.streams.isEmpty, let count = state.backlog?.count {
            if count < Self.backlogLimit { state.backlog?.append(event) } else { state.backlog = nil }
        }
        return (state.delegate, Array(state.streams.values), expirationHandler)
    }

    /// Sends `done SEQ` for an entry the delegate has handled, unless the app completes
    /// entries itself.
    private func completeAutomatically(_ seq: UInt64) {
        if backgroundEntryCompletion == .automatic { completeBackgroundEntry(seq) }
    }

    /// The supervisor is gone: acts as on `will-terminate 0`, then expires every open task
    /// and finishes the streams.
    private func disconnect() {
        deliver(.willTerminate(graceMS: 0), readAt: MonotonicClock.now())
        let (handlers, streams) = state.withLock { state in
            state.connected = false
            state.backlog = nil
            let handlers = state.expirationHandlers.values.compactMap { $0 }
            for number in state.expirationHandlers.keys { state.expirationHandlers.updateValue(nil, forKey: number) }
            let streams = Array(state.streams.values)
            state.streams.removeAll()
            return (handlers, streams)
        }
        for handler in handlers + taskScheduler.disconnect() { handler() }
        for stream in streams { stream.finish() }
    }
}

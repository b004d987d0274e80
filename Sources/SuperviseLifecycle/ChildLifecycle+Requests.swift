import SuperviseProtocol

extension ChildLifecycle {
    /// Applies one well-formed request, answering `error`/`expire` where the contract says so.
    mutating func apply(_ request: Request, _ now: Instant) {
        guard !hasNoProcess else { return }
        switch request {
        case .hello: hello(now)
        case .done(let seq): done(seq, request, now)
        case .begin(let id, let name): begin(id, name, request, now)
        case .end(let id) where runningTask?.id == id: completeScheduledTask(id, success: true, request, now)
        case .end(let id): end(id, request, now)
        case .taskCompleted(let id, let success): completeScheduledTask(id, success: success, request, now)
        case .schedule, .cancel: break  // kept across runs, by ChildCore
        }
    }

    mutating func refuse(_ code: ProtocolErrorCode, _ request: Request) {
        // A well-formed request is quoted as a well-behaved child writes it (the codec's form).
        send(.error(RequestError(code: code, request: String(request.line.dropLast()))))
    }

    /// Makes the child aware if it comes in time; a child expected to be aware (`--aware`) is
    /// aware whenever it comes, and a launch waiting for it is finished.
    private mutating func hello(_ now: Instant) {
        guard !saidHello else {
            return refuse(.badVersion, .hello)
        }
        saidHello = true
        if settings.aware {
            aware = true
            if isWaitingForHello { finishLaunching(now) }
        } else if firstWindowClosed {
            actions.append(.note("hello after the first window ended: the child stays unaware"))
        } else {
            aware = true
        }
    }

    private mutating func done(_ number: UInt64, _ request: Request, _ now: Instant) {
        switch state {
        case .background:
            guard number == seq else { return refuse(.staleDone, request) }
            doneForCurrentEntry = true
            suspendIfSettled(now)
        case .suspending, .suspended, .terminating:
            break
        case .launching, .active, .exited, .notRunning:
            refuse(.staleDone, request)
        }
    }

    /// Granted in the foreground, and in the background until suspension or termination is
    /// decided and until *limit − expiry warning*; otherwise answered with `expire`.
    private mutating func begin(_ id: TaskID, _ name: String?, _ request: Request, _ now: Instant) {
        if openTasks.contains(id) {
            return refuse(.duplicateID, request)
        }
        let grantable: Bool
        switch state {
        case .launching, .active: grantable = true
        case .background: grantable = warningAt.map { now < $0 } ?? true
        case .suspending, .suspended, .terminating, .exited, .notRunning: grantable = false
        }
        if openTasks.count >= settings.maxOpenTasks {
            refuse(.tooManyTasks, request)
            return refuseTask(id, name, now)
        }
        guard grantable else { return refuseTask(id, name, now) }
        openTasks.append(TaskReference(id: id, name: name))
        record(TaskRecord(id: id, name: name, begin: now, end: nil, expire: nil, refused: false))
    }

    private mutating func refuseTask(_ id: TaskID, _ name: String?, _ now: Instant) {
        if refusedIDs.count >= Self.refusedIDLimit { refusedIDs.removeAll() }
        refusedIDs.insert(id)
        record(TaskRecord(id: id, name: name, begin: now, end: nil, expire: now, refused: true))
        send(.expire(id))
    }

    private mutating func end(_ id: TaskID, _ request: Request, _ now: Instant) {
        guard openTasks.remove(id) else {
            if refusedIDs.remove(id) == nil { refuse(.unknownID, request) }
            return
        }
        expireSent.remove(id)
        if let index = historyIndex.removeValue(forKey: id) { taskHistory[index].end = now }
        suspendIfSettled(now)
    }

    private mutating func record(_ task: TaskRecord) {
        guard taskHistory.count < taskRecordLimit else {
            tasksNotRecorded += 1
            return
        }
        if !task.refused { historyIndex[task.id] = taskHistory.count }
        taskHistory.append(task)
    }

    /// How many refused IDs are remembered so their `end` is accepted silently.
    static var refusedIDLimit: Int { 4096 }
}

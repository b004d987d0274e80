import SuperviseSystemCall
import SuperviseLifecycle
import _SuperviseCShims
import SystemPackage

/// One epoll set and one timerfd: every descriptor the supervisor waits on, and its next deadline.
///
/// The loop makes no system call while nothing happens: it blocks in `epoll_wait`
/// with no timeout, and the timerfd is re-armed only when the earliest deadline changes.
///
/// epoll reports `EPOLLERR` and `EPOLLHUP` whatever the mask, and a pipe or socket whose other
/// end is closed reports them for good. A handler gets them in its `events`; a descriptor that
/// reports one while paused (mask 0: its handler does not want to hear from it now) is taken out
/// of the epoll set until it is watched again, so a closed channel can't make the loop spin.
public final class EventLoop {
    public typealias Handler = (_ events: UInt32) -> Void

    private let epollFD: Int32
    private let timerFD: Int32
    private var handlers: [Int32: Watch] = [:]
    private var generation: UInt32 = 0
    private var armedDeadline: Instant?
    private var ready = [_supervise_ready_event](repeating: _supervise_ready_event(), count: 64)

    /// Runs after each handler returns: the supervisor takes held commands between inputs,
    /// never in the middle of one.
    public var afterEachHandler: () -> Void = {}

    /// Runs when a wait for a deadline woke much later than asked (``SupervisorGap``), before any
    /// handler: the supervisor was not running, and moves the deadlines before it decides anything.
    public var afterGap: (SupervisorGap) -> Void = { _ in }

    public static let readable = UInt32(EPOLLIN.rawValue)
    public static let writable = UInt32(EPOLLOUT.rawValue)
    /// Urgent data; what a pressure stall trigger (``PressureTrigger``) reports when it fires.
    public static let priority = UInt32(EPOLLPRI.rawValue)
    /// The other end is gone or the descriptor failed: reported whatever the mask.
    public static let closed = UInt32(EPOLLERR.rawValue) | UInt32(EPOLLHUP.rawValue)

    /// One watched descriptor: its handler, the events it waits for, those the epoll set has
    /// for it, and whether it is out of the epoll set because it reported `closed` while paused.
    private struct Watch {
        var generation: UInt32
        var events: UInt32
        var inSet: UInt32
        var parked = false
        let handler: Handler
    }

    /// Descriptors whose events changed since the epoll set was last told (``modify(_:events:)``).
    private var changed: Set<Int32> = []

    public init() throws(SupervisorError) {
        let epoll = valueOrErrno { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        let timer = valueOrErrno { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC)) }
        do throws(Errno) {
            (epollFD, timerFD) = (try epoll.get(), try timer.get())
        } catch {
            for case .success(let fd) in [epoll, timer] { Descriptor.close(fd) }
            throw SupervisorError(.system, "cannot create the event loop: \(error.sentenceText)", errno: error.rawValue)
        }
        let watchTimer = Self.control(epollFD, EPOLL_CTL_ADD, timerFD, Self.readable, UInt64(UInt32(bitPattern: timerFD)))
        if case .failure(let error) = watchTimer {
            Descriptor.close(timerFD)
            Descriptor.close(epollFD)
            throw SupervisorError(.system, "cannot create the event loop: \(error.sentenceText)", errno: error.rawValue)
        }
    }

    deinit {
        Descriptor.close(timerFD)
        Descriptor.close(epollFD)
    }

    /// Waits on `fd` for `events`; returns `false` when the fd can't be polled (a regular file, /dev/null).
    @discardableResult
    public func add(_ fd: Int32, events: UInt32 = EventLoop.readable, _ handler: @escaping Handler) -> Bool {
        generation &+= 1
        guard case .success = Self.control(epollFD, EPOLL_CTL_ADD, fd, events, token(fd, generation)) else {
            return false
        }
        handlers[fd] = Watch(generation: generation, events: events, inSet: events, handler: handler)
        changed.remove(fd)
        return true
    }

    /// Changes the events `fd` is waited for (0 to pause it). The epoll set is told at the next
    /// wait: a pause undone before it (a command read and run at once) costs no system call.
    public func modify(_ fd: Int32, events: UInt32) {
        guard var watch = handlers[fd], watch.events != events || watch.parked else { return }
        watch.events = events
        handlers[fd] = watch
        if watch.events != watch.inSet || watch.parked { changed.insert(fd) } else { changed.remove(fd) }
    }

    /// Tells the epoll set every change since the last wait. A descriptor the kernel would not
    /// take back into the set stays parked, and is tried again at its next change.
    private func applyChanges() {
        for fd in changed {
            guard var watch = handlers[fd] else { continue }
            if watch.parked {
                // Out of the set since it reported `closed`: back in only when something is wanted.
                if watch.events != 0,
                   case .success = Self.control(epollFD, EPOLL_CTL_ADD, fd, watch.events, token(fd, watch.generation)) {
                    watch.parked = false
                }
            } else if case .failure = Self.control(epollFD, EPOLL_CTL_MOD, fd, watch.events, token(fd, watch.generation)) {
                // Not in the set any more (ENOENT): the kernel dropped it, so it is parked.
                watch.parked = true
            }
            watch.inSet = watch.events
            handlers[fd] = watch
        }
        changed.removeAll(keepingCapacity: true)
    }

    /// Stops waiting on `fd` (call before closing it).
    public func remove(_ fd: Int32) {
        changed.remove(fd)
        guard let watch = handlers.removeValue(forKey: fd), !watch.parked else { return }
        leave(fd)
    }

    /// Blocks until a descriptor is ready or `deadline` passes, then runs the ready handlers.
    /// With `pollOnly`, collects only what is ready now and does not block.
    public func wait(until deadline: Instant?, pollOnly: Bool = false) {
        applyChanges()
        let armed = arm(deadline)
        // The clock is read (vDSO, no system call) only when a deadline can be late.
        let waitBegan = deadline.map { _ in MonotonicClock.now() }
        // A timer that could not be armed: epoll_wait's own timeout stands in for it.
        let timeout = pollOnly ? 0 : armed ? -1 : Self.milliseconds(until: deadline, from: waitBegan)
        let waited = valueOrErrno { _supervise_epoll_wait(epollFD, &ready, Int32(ready.count), timeout) }
        if let waitBegan, let gap = SupervisorGap.detect(waitBegan: waitBegan, deadline: deadline,
                                                         woke: MonotonicClock.now()) {
            afterGap(gap)
        }
        guard case .success(let count) = waited, count > 0 else { return }
        for index in 0..<Int(count) {
            let event = ready[index]
            let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: event.token))
            if fd == timerFD {
                var expirations: UInt64 = 0
                _ = valueOrErrno { read(timerFD, &expirations, 8) }
                armedDeadline = nil
                continue
            }
            let generation = UInt32(truncatingIfNeeded: event.token >> 32)
            guard let watch = handlers[fd], watch.generation == generation else { continue }
            watch.handler(event.events)
            if event.events & Self.closed != 0 { parkIfPaused(fd, generation) }
            afterEachHandler()
        }
    }

    /// Takes `fd` out of the epoll set if, after its handler ran, it is still watched and paused:
    /// it would report `closed` again at once, forever.
    private func parkIfPaused(_ fd: Int32, _ generation: UInt32) {
        guard var watch = handlers[fd], watch.generation == generation, watch.events == 0, !watch.parked else { return }
        watch.parked = true
        handlers[fd] = watch
        changed.remove(fd)
        leave(fd)
    }

    /// Takes `fd` out of the epoll set. Its one failure, ENOENT or EBADF, says it is out already
    /// (closed, or dropped by the kernel): nothing is left to undo, so the result is not needed.
    private func leave(_ fd: Int32) {
        _ = Self.control(epollFD, EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Arms the timer at `deadline` (disarms it for `nil`); `false` when the kernel refused, and
    /// the wait must time itself.
    private func arm(_ deadline: Instant?) -> Bool {
        guard deadline != armedDeadline else { return true }
        var spec = itimerspec()
        if let deadline {
            // An absolute time of zero would disarm the timer: never ask for less than 1 ns.
            let ns = max(deadline.nanoseconds, 1)
            spec.it_value = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        }
        guard case .success = valueOrErrno({ timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil) }) else {
            armedDeadline = nil
            return false
        }
        armedDeadline = deadline
        return true
    }

    /// epoll_wait's timeout for `deadline`: whole milliseconds, rounded up, from `now`.
    static func milliseconds(until deadline: Instant?, from now: Instant?) -> Int32 {
        guard let deadline, let now else { return -1 }
        guard deadline > now else { return 0 }
        let (nanoseconds, overflow) = deadline.nanoseconds.subtractingReportingOverflow(now.nanoseconds)
        guard !overflow else { return Int32.max }
        return Int32(clamping: nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1))
    }

    /// `epoll_ctl` through the one wrapper.
    private static func control(_ epollFD: Int32, _ operation: Int32, _ fd: Int32, _ events: UInt32,
                                _ token: UInt64) -> Result<Int32, Errno> {
        valueOrErrno { _supervise_epoll_ctl(epollFD, operation, fd, events, token) }
    }

    private func token(_ fd: Int32, _ generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
    }
}

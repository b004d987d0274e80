import SuperviseSystemCall
import SuperviseLifecycle
import _SuperviseCShims
import Glibc
import SystemPackage

/// The client's end of the control socket (`supervise ctl`): blocking, one command a connection.
public enum ControlSocketClient {
    /// Why no connection could be made.
    public enum ConnectError: Error, Equatable {
        /// Nobody listens there: no socket file, or its supervisor is gone.
        case nobodyAnswers(Errno)
        /// The socket exists but this user may not connect to it.
        case notAllowed(Errno)
    }

    /// Connects to the supervisor listening at `path`, waiting until `deadline` at most.
    public static func connect(_ path: String, until deadline: Instant) -> Result<Int32, ConnectError> {
        let left = max((deadline - MonotonicClock.now()).wholeMilliseconds, 1)
        return valueOrErrno { _supervise_unix_connect(path, Int(left)) }.mapError { error in
            error == .permissionDenied || error == .notPermitted ? .notAllowed(error) : .nobodyAnswers(error)
        }
    }

    /// Sends `text` whole, without SIGPIPE: a supervisor that already closed the connection (it
    /// refused the client) has its answer waiting to be read all the same.
    public static func send(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count,
                  case .success(let sent) = valueOrErrno({
                      Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                  }) {
                offset += sent
            }
        }
    }

    /// Waits until `fd` has something to read (or its end) or `deadline` passes; false when it passed.
    public static func waitReadable(_ fd: Int32, until deadline: Instant) -> Bool {
        while true {
            let left = (deadline - MonotonicClock.now()).nanoseconds
            guard left > 0 else { return false }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left / 1_000_000 + 1)
            switch valueOrErrno({ poll(&entry, 1, milliseconds) }) {
            case .success(let ready) where ready > 0: return true
            case .success: continue
            case .failure: return true  // the read says what went wrong
            }
        }
    }
}

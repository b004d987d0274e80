import SuperviseSystemCall
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

    /// Connects to the supervisor listening at `path`.
    public static func connect(_ path: String) -> Result<Int32, ConnectError> {
        valueOrErrno { _supervise_unix_connect(path) }.mapError { error in
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
}

import Foundation
import SuperviseTestSupport

/// gunicorn with two sync workers on 127.0.0.1 serving a WSGI app that answers each request
/// after 0.2 s with the pid of the worker that served it, so that requests are in flight when
/// it is reloaded. Its configuration is a file in a temporary directory.
struct GunicornServer {
    /// A python3 that can import gunicorn (scripts/setup-debian.sh installs it into the system's).
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { path in
        guard FileManager.default.isExecutableFile(atPath: path) else { return false }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: path)
        check.arguments = ["-c", "import gunicorn"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }

    /// Why gunicorn can't be run here, or nil when it can.
    static var missingReason: String? {
        python == nil ? "gunicorn is not installed for /usr/bin/python3 (scripts/setup-debian.sh installs it)" : nil
    }

    private let temporary = TemporaryDirectory(prefix: "supervise-gunicorn")
    var directory: String { temporary.url.path }
    let port: UInt16

    init() throws {
        guard let port = Loopback.freePort() else { throw SetupFailure("no free port on 127.0.0.1") }
        self.port = port
        let app = """
            import os, time
            def app(environ, start_response):
                time.sleep(0.2)
                body = f"{os.getpid()}".encode()
                start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
                return [body]
            """
        // A setting this gunicorn does not know is ignored: control_socket_disable is new in 24.
        let config = """
            bind = "127.0.0.1:\(port)"
            workers = 2
            graceful_timeout = 20
            control_socket_disable = True
            """
        try app.write(toFile: directory + "/app.py", atomically: true, encoding: .utf8)
        try config.write(toFile: directory + "/gunicorn.conf.py", atomically: true, encoding: .utf8)
    }

    /// The child's command line: gunicorn's master, which forks the workers.
    var command: [String] {
        [Self.python ?? "python3", "-m", "gunicorn", "--chdir", directory, "--config", directory + "/gunicorn.conf.py", "app:app"]
    }

    func remove() {
        temporary.remove()
    }
}

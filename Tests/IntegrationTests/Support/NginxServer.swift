import Foundation
import SuperviseTestSupport

/// nginx with a config of its own in a temporary directory: a master and two workers on
/// 127.0.0.1, with the pid file and logs in the directory.
struct NginxServer {
    static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Why nginx can't be run here, or nil when it can.
    static var missingReason: String? {
        binary == nil ? "nginx is not installed (scripts/setup-debian.sh installs it)" : nil
    }

    private let temporary = TemporaryDirectory(prefix: "supervise-nginx")
    var directory: URL { temporary.url }
    let port: UInt16
    /// `daemon on`: the master forks, its parent exits and it calls setsid, leaving the child's tree.
    let daemon: Bool

    init(daemon: Bool) throws {
        guard let port = Loopback.freePort() else { throw SetupFailure("no free port on 127.0.0.1") }
        self.port = port
        self.daemon = daemon
        let path = directory.path
        let config = """
            daemon \(daemon ? "on" : "off");
            master_process on;
            worker_processes 2;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log info;
            events { worker_connections 64; }
            http {
                access_log \(path)/access.log;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    location / { return 200 "ok\\n"; }
                }
            }
            """
        try config.write(toFile: path + "/nginx.conf", atomically: true, encoding: .utf8)
    }

    /// The child's command line. With `daemon on` nginx's own process exits at once, so a shell
    /// starts it and then stays as the child (a `sleep`) for supervise to background and terminate.
    var command: [String] {
        let nginx = [Self.binary ?? "nginx", "-p", directory.path, "-e", directory.path + "/error.log",
                     "-c", directory.path + "/nginx.conf"]
        return daemon ? ["/bin/sh", "-c", "\"$@\" && exec sleep 600", "sh"] + nginx : nginx
    }

    /// The master's pid from the pid file, once nginx has written it.
    var masterPid: Int32? {
        (try? String(contentsOfFile: directory.path + "/nginx.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The status line nginx answers `GET /` with, or nil when no answer comes within `timeout` s.
    func answer(timeout: Double = 2) -> String? {
        Loopback.httpStatusLine(port: port, timeout: timeout)
    }

    /// The last lines of nginx's error log, for failure messages.
    var errorLog: String {
        fullErrorLog.split(separator: "\n").suffix(15).joined(separator: "\n")
    }

    /// nginx's error log (`info` and above: with each signal a process of it receives).
    var fullErrorLog: String {
        (try? String(contentsOfFile: directory.path + "/error.log", encoding: .utf8)) ?? ""
    }

    func remove() {
        temporary.remove()
    }
}

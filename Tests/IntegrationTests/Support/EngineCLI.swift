import Foundation
import SuperviseTestSupport

/// A container engine's command line, Docker's or Podman's, pointed at the test run's own daemon
/// or storage: the tests drive both with the same words (`run`, `exec`, `kill -s`, `stop -t`,
/// `pause`, `inspect`, `logs`).
struct EngineCLI: Sendable {
    /// `docker` or `podman`, for messages.
    let name: String
    /// The program and the options that point it at the run's own daemon or storage.
    let command: [String]
    /// What `run` needs here beyond the tests' defaults (Podman: rlimits this VM lets runc set).
    let runOptions: [String]

    /// Runs `ENGINE ARGUMENTS` to its end: its status, and stdout and stderr together. Spawned
    /// and waited for directly (posix_spawn, waitpid), no signal blocked, output through a file:
    /// `podman run -d` leaves conmon holding its stdout, so a pipe would never reach its end, and
    /// Foundation's Process was seen never to notice such a podman's exit.
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let directory = TemporaryDirectory(prefix: "supervise-engine-output")
        defer { directory.remove() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory.file("output"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        try closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = (command + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw SetupFailure("\(command[0]) could not be run: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var waited = waitpid(pid, &status, 0)
        while waited < 0 && errno == EINTR { waited = waitpid(pid, &status, 0) }
        guard waited == pid else { throw SetupFailure("waitpid for \(command[0]): \(String(cString: strerror(errno)))") }
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, (try? String(contentsOfFile: directory.file("output"), encoding: .utf8)) ?? "")
    }

    /// Like `run(_:)`, but throws with the output when the status is not 0; returns the output trimmed.
    @discardableResult
    func checked(_ arguments: [String]) throws -> String {
        let result = try run(arguments)
        guard result.status == 0 else {
            throw SetupFailure("\(name) \(arguments.joined(separator: " ")) exited \(result.status): \(result.output)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Imports the minbase root as `image` unless the engine's storage has it (first run only).
    func importMinbase(as image: String) throws {
        if try run(["image", "inspect", image]).status != 0 {
            try checked(["import", try DebianRoot.tarball("minbase"), image])
        }
    }
}

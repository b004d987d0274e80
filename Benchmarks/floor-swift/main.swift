import Glibc

// The floor under supervise's start-up and idle figures: a Swift program linked as supervise's
// release build is (Package.swift, `releaseLinking`), doing only what any supervisor must —
// `floor-swift -- COMMAND [ARG...]` starts COMMAND, passes SIGTERM on to it, waits for it and
// exits with its status. With no arguments it exits at once: what starting a Swift executable
// costs (docs/performance.md).

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "--", arguments.count > 1 else { exit(0) }
exit(runToEnd(Array(arguments.dropFirst())))

/// The running command, for the SIGTERM handler.
nonisolated(unsafe) var commandPID: pid_t = 0

/// Starts `command` with this process's environment and descriptors, passes SIGTERM on to it,
/// and returns its exit status.
func runToEnd(_ command: [String]) -> Int32 {
    var argv = command.map { strdup($0) }
    argv.append(nil)
    guard posix_spawnp(&commandPID, command[0], nil, nil, argv, environ) == 0 else { return 127 }
    signal(SIGTERM) { _ in kill(commandPID, SIGTERM) }
    var status: Int32 = 0
    while waitpid(commandPID, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

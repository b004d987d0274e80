import Glibc

/// The running command, for the SIGTERM handler.
nonisolated(unsafe) private var commandPID: pid_t = 0

/// What both floors do for a command (Benchmarks/floor-swift, floor-parser): start it with this
/// process's environment and descriptors, pass SIGTERM on to it, wait for it; returns its exit
/// status (127 when it could not be started, 128 + N when signal N ended it).
public func runToEnd(_ command: [String]) -> Int32 {
    var argv = command.map { strdup($0) }
    argv.append(nil)
    guard posix_spawnp(&commandPID, command[0], nil, nil, argv, environ) == 0 else { return 127 }
    signal(SIGTERM) { _ in kill(commandPID, SIGTERM) }
    var status: Int32 = 0
    while waitpid(commandPID, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

import FloorRun
import Glibc

// The floor under supervise's start-up and idle figures: a Swift program linked as supervise's
// release build is (Package.swift, `releaseLinking`), doing only what any supervisor must —
// `floor-swift -- COMMAND [ARG...]` starts COMMAND, passes SIGTERM on to it, waits for it and
// exits with its status. With no arguments it exits at once: what starting a Swift executable
// costs (docs/performance.md).

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "--", arguments.count > 1 else { exit(0) }
exit(runToEnd(Array(arguments.dropFirst())))

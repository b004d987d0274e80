import CSuperviseTestSupport
import Foundation

/// Makes a `posix_spawn` child close every descriptor of the test process above the standard
/// three, after the actions added before this one. Foundation's `Process` already does; a test's
/// own `posix_spawn` must too: a pipe another test made a moment ago, before it could mark it
/// close-on-exec, would otherwise stay open in the child, and its reader wait for an end.
public func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
    let result = supervise_test_spawn_close_from(&actions, 3)
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
}

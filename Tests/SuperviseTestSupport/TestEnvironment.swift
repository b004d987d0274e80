import Foundation

/// The environment the tests give the processes they start: their own, without a Python version
/// manager's shims on PATH when Debian's python3 is there.
///
/// The tests use Debian's python3 (`scripts/setup-debian.sh` installs PyYAML and gunicorn into
/// it). On a machine whose PATH starts with pyenv's shims, each `python3` first ran pyenv's bash
/// scripts, some 14 processes and 175 ms of CPU against Debian's 20 ms: 33 s of the suite's CPU.
public enum TestEnvironment {
    public static let inherited: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        if let path = environment["PATH"], FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
            environment["PATH"] = path.split(separator: ":", omittingEmptySubsequences: false)
                .filter { !$0.hasSuffix("/.pyenv/shims") }.joined(separator: ":")
        }
        return environment
    }()
}

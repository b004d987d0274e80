import Foundation
import SuperviseTestSupport

/// A clean Debian root (a cached `DebianRoot`: no Swift) unpacked into a temporary directory, and
/// commands run in it with `chroot`. Each command gets a mount namespace of its own in which
/// `/proc` is mounted in the root: the kernel unmounts it when the command ends, however it ends,
/// so no mount outlives a test (and removing the root never walks into a mount).
final class CleanRoot: Sendable {
    private let directory: TemporaryDirectory

    /// Why commands can't be run in a root here, or nil.
    static let missingReason: String? = ["/usr/bin/unshare", "/usr/sbin/chroot"]
        .first { !FileManager.default.isExecutableFile(atPath: $0) }.map { "\($0) is not installed (util-linux, coreutils)" }

    /// Unpacks the root `name` (minbase plus `packages`, made on first use: see DebianRoot).
    init(_ name: String = "minbase", packages: [String] = []) throws {
        directory = TemporaryDirectory(prefix: "supervise-root")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        try DebianRoot.unpack(name, packages: packages, into: directory.path)
    }

    /// The root, as the host sees it.
    var path: String { directory.path }

    /// The host's path of `path` inside the root (`/usr/bin/supervise`).
    func file(_ path: String) -> String { directory.path + path }

    /// Copies the host's file `source` into the root at `path` (a folder that exists there).
    func copy(_ source: String, to path: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: file(path))
    }

    /// Runs `command` in the root with `stdin` as its input and a root's usual environment (PATH
    /// with the sbin folders dpkg needs, HOME); after `timeout` seconds records an issue and kills it.
    func run(_ command: [String], stdin: String = "", timeout: Double = 60) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let enter = #"mount -t proc proc "$0/proc" && exec /usr/sbin/chroot "$0" "$@""#
        let words = ["/usr/bin/env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
                     "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", enter, path] + command
        return try ShellScript.run("exec " + words.map(ShellScript.quoted).joined(separator: " "), stdin: stdin, timeout: timeout)
    }

    /// Removes the root; doing it twice is harmless.
    func remove() { directory.remove() }
}

import Foundation
import SuperviseTestSupport

/// Debian bookworm root file systems for the engine tests, made by `scripts/debian-root.sh` with
/// debootstrap from Debian's mirror and cached as tarballs under the build folder
/// (`.build/engines`, or `$SUPERVISE_ENGINE_CACHE`), so only the first run pays for them.
enum DebianRoot {
    /// The package's root folder (this file is Tests/IntegrationTests/Support/DebianRoot.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Where roots, images and other slow things the engine tests make are kept between runs.
    static var cache: String {
        ProcessInfo.processInfo.environment["SUPERVISE_ENGINE_CACHE"] ?? packageRoot + "/.build/engines"
    }

    /// Why no root can be made here, or nil.
    static let missingReason: String? = FileManager.default.isExecutableFile(atPath: "/usr/sbin/debootstrap")
        ? nil : "debootstrap is not installed (scripts/setup-debian.sh installs it)"

    /// The tarball of the root `name`: minbase plus `packages`, made on first use (minutes; later
    /// calls return at once). Throws with debootstrap's last lines when it can't be made.
    static func tarball(_ name: String, packages: [String] = []) throws -> String {
        let result = try runToEnd([packageRoot + "/scripts/debian-root.sh", cache, name] + packages)
        let lines = result.output.split(separator: "\n")
        guard result.status == 0, let path = lines.last, path.hasPrefix("/") else {
            throw SetupFailure("debian-root.sh \(name) exited \(result.status): \(result.output)")
        }
        return String(path)
    }

    /// Unpacks the root `name` into `directory` (which must exist and be empty).
    static func unpack(_ name: String, packages: [String] = [], into directory: String) throws {
        let tarball = try tarball(name, packages: packages)
        let result = try runToEnd(["/usr/bin/tar", "--numeric-owner", "--xattrs", "-C", directory, "-xf", tarball])
        guard result.status == 0 else { throw SetupFailure("unpacking \(tarball) exited \(result.status): \(result.output)") }
    }

    /// The root `name` unpacked once into the cache (`NAME.root`), for engines that only read it
    /// (`systemd-nspawn --volatile=overlay`): unpacking takes many seconds, so later calls return
    /// the directory at once. Callers must not write into it.
    static func unpacked(_ name: String, packages: [String] = []) throws -> String {
        let directory = cache + "/" + name + ".root"
        let result = try runToEnd(["/usr/bin/flock", cache + "/" + name + ".lock", "/bin/sh", "-c",
                                   "test -e \"$1/.unpacked\" || { rm -rf \"$1\" && mkdir \"$1\" && "
                                   + "tar --numeric-owner --xattrs -C \"$1\" -xf \"$2\" && touch \"$1/.unpacked\"; }",
                                   "unpack", directory, try tarball(name, packages: packages)])
        guard result.status == 0 else { throw SetupFailure("unpacking \(name) into \(directory) exited \(result.status): \(result.output)") }
        return directory
    }
}

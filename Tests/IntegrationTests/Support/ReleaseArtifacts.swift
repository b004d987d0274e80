import Foundation
import SuperviseTestSupport

/// The `.deb` and the tarball `scripts/package.sh` makes from the release build, made once per test
/// run into `dist` in the engine suites' cache (`DebianRoot.cache`). The release build is `swift
/// build -c release --product supervise`, incremental in the build folder (minutes the first time;
/// seconds after); `--ignore-lock`, since the `swift test` running this holds the build folder's
/// lock (and builds only the debug products).
enum ReleaseArtifacts {
    struct Made: Sendable {
        var deb: String
        var tarball: String
    }

    /// Why the artifacts can't be made here, or nil.
    static let missingReason: String? = ["/usr/bin/dpkg-deb", "/usr/bin/dpkg-shlibdeps", "/usr/bin/objdump"]
        .first { !FileManager.default.isExecutableFile(atPath: $0) }
        .map { "\($0) is not installed (Debian's dpkg-dev and binutils: scripts/setup-debian.sh)" }

    /// The artifacts; throws what the build or the script said if they could not be made.
    static func get() throws -> Made { try made.get() }

    private static let made: Result<Made, SetupFailure> = Result(catching: {
        let root = DebianRoot.packageRoot
        let build = try runToEnd(["/usr/bin/env", "-C", root, "swift", "build", "-c", "release", "--product", "supervise", "--ignore-lock"])
        guard build.status == 0 else {
            throw SetupFailure("swift build -c release exited \(build.status): \(build.output.suffix(2000))")
        }
        let script = try runToEnd([root + "/scripts/package.sh", "--binary", root + "/.build/release/supervise", DebianRoot.cache + "/dist"])
        let paths = script.output.split(separator: "\n").map(String.init)
        guard script.status == 0, let deb = paths.first(where: { $0.hasSuffix(".deb") }),
              let tarball = paths.first(where: { $0.hasSuffix(".tar.gz") })
        else { throw SetupFailure("package.sh exited \(script.status): \(script.output)") }
        return Made(deb: deb, tarball: tarball)
    }).mapError { $0 as? SetupFailure ?? SetupFailure("\($0)") }
}

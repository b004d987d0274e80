/// One line of `/proc/PID/mountinfo`, the fields the freezers need.
struct MountInfo: Equatable {
    /// The directory of the mounted file system that is visible at `mountPoint` (`/` for a whole cgroup hierarchy).
    var root: String
    var mountPoint: String
    var fileSystemType: String
    /// The file-system-specific options after the `-` separator; a cgroup v1 mount lists its controllers here.
    var superOptions: [String]
}

/// The cgroups one process is in, from `/proc/PID/cgroup`.
struct ProcessCgroups: Equatable {
    /// The path in the cgroup v2 hierarchy (the `0::` line).
    var unified: String?
    /// The path in each cgroup v1 hierarchy, by controller (`freezer`, `cpu`, `name=systemd`, …).
    var byController: [String: String]
}

/// A cgroup hierarchy the freezers can use.
enum CgroupVersion: Equatable {
    case v2
    /// The cgroup v1 hierarchy that has the `freezer` controller.
    case v1Freezer

    var displayName: String { self == .v2 ? "cgroup v2" : "cgroup v1 freezer" }
    /// The file that freezes a cgroup.
    var freezeFile: String { self == .v2 ? "cgroup.freeze" : "freezer.state" }
    /// Why the freeze file may be missing, for the message that says it is.
    var freezeFileHint: String { self == .v2 ? " (it needs Linux 5.2 or later)" : "" }
}

/// Where a process's own cgroup is, in one hierarchy.
struct CgroupLocation: Equatable {
    var mountPoint: String
    /// The process's own cgroup directory.
    var directory: String
}

/// Pure parsers of `/proc` cgroup and mount text.
enum CgroupPaths {
    /// The cgroup and cgroup2 mounts of `/proc/PID/mountinfo`; other lines are skipped on their
    /// bytes, before any field becomes a `String` (start-up reads this file once, and it can have
    /// hundreds of lines).
    static func parseMountInfo(_ text: String) -> [MountInfo] {
        var mounts: [MountInfo] = []
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard let separator = fields.firstIndex(where: { $0.elementsEqual("-".utf8) }), separator >= 6,
                  fields.count >= separator + 4,
                  fields[separator + 1].elementsEqual("cgroup".utf8) || fields[separator + 1].elementsEqual("cgroup2".utf8)
            else { continue }
            func field(_ index: Int) -> String { String(decoding: fields[index], as: UTF8.self) }
            mounts.append(MountInfo(root: unescape(field(3)), mountPoint: unescape(field(4)),
                                    fileSystemType: field(separator + 1),
                                    superOptions: field(separator + 3).split(separator: ",").map(String.init)))
        }
        return mounts
    }

    static func parseProcessCgroups(_ text: String) -> ProcessCgroups {
        var result = ProcessCgroups(unified: nil, byController: [:])
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                result.unified = path
            } else {
                for controller in fields[1].split(separator: ",") {
                    result.byController[String(controller)] = path
                }
            }
        }
        return result
    }

    /// The process's own cgroup directory in `version`'s hierarchy, or why there is none.
    static func locate(_ version: CgroupVersion, mountInfo: String,
                       processCgroups: String) -> Result<CgroupLocation, FreezerUnusable> {
        locate(version, mounts: parseMountInfo(mountInfo), cgroups: parseProcessCgroups(processCgroups))
    }

    /// The same from the parsed files, so that both hierarchies are found from one parse.
    static func locate(_ version: CgroupVersion, mounts: [MountInfo],
                       cgroups: ProcessCgroups) -> Result<CgroupLocation, FreezerUnusable> {
        let mounts = hierarchy(version, in: mounts)
        guard !mounts.isEmpty else {
            return .failure(FreezerUnusable("no \(version.displayName) hierarchy is mounted"))
        }
        let own = version == .v2 ? cgroups.unified : cgroups.byController["freezer"]
        guard let own else {
            return .failure(FreezerUnusable(
                "this process is in no \(version.displayName) cgroup (/proc/self/cgroup has no \(version == .v2 ? "0::" : "freezer") line)"))
        }
        for mount in mounts {
            if let relative = relativePath(of: own, under: mount.root) {
                return .success(CgroupLocation(mountPoint: mount.mountPoint,
                                               directory: join(mount.mountPoint, relative)))
            }
        }
        return .failure(FreezerUnusable(
            "this process's \(version.displayName) cgroup \(own) is not visible under \(mounts[0].mountPoint)", cause: .notVisible))
    }

    /// `directory` (`--cgroup-root`) as the place for this supervisor's cgroup in `version`'s
    /// hierarchy: it must be an absolute path at or below one of its mounts.
    static func locate(_ version: CgroupVersion, directory: String, mountInfo: String) -> Result<CgroupLocation, FreezerUnusable> {
        locate(version, directory: directory, mounts: parseMountInfo(mountInfo))
    }

    /// The same from the parsed mounts.
    static func locate(_ version: CgroupVersion, directory: String,
                       mounts: [MountInfo]) -> Result<CgroupLocation, FreezerUnusable> {
        let mounts = hierarchy(version, in: mounts)
        let trimmed = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        guard let mount = mounts.first(where: { relativePath(of: trimmed, under: $0.mountPoint) != nil }), trimmed.hasPrefix("/") else {
            let mounted = mounts.first.map { "mounted at \($0.mountPoint)" } ?? "mounted here"
            return .failure(FreezerUnusable("--cgroup-root \(directory) is not in the \(version.displayName) hierarchy \(mounted)"))
        }
        return .success(CgroupLocation(mountPoint: mount.mountPoint, directory: trimmed))
    }

    /// The mounts of `version`'s hierarchy.
    static func hierarchy(_ version: CgroupVersion, in mounts: [MountInfo]) -> [MountInfo] {
        mounts.filter { mount in
            switch version {
            case .v2: mount.fileSystemType == "cgroup2"
            case .v1Freezer: mount.fileSystemType == "cgroup" && mount.superOptions.contains("freezer")
            }
        }
    }

    /// `path` relative to `root` (both absolute), or `nil` when it is not at or below it.
    static func relativePath(of path: String, under root: String) -> String? {
        if root == "/" { return path }
        if path == root { return "/" }
        return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count)) : nil
    }

    static func join(_ directory: String, _ path: String) -> String {
        let trimmed = path.drop { $0 == "/" }
        if trimmed.isEmpty { return directory }
        return directory.hasSuffix("/") ? directory + trimmed : directory + "/" + trimmed
    }

    /// Decodes the octal escapes (`\040` for a space, …) mountinfo uses in paths.
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        let source = Array(field.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "\\"), index + 3 < source.count,
               let value = UInt8(String(decoding: source[(index + 1)...(index + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

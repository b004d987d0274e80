import Foundation

/// The unprivileged users the privilege tests run children as: `supervise-test`, made with
/// `useradd --system` when missing (scripts/setup-debian.sh makes it too), and `nobody`.
enum TestUser {
    static let name = "supervise-test"
    /// A second uid, for a sibling under another user.
    static let other = "nobody"

    /// Why children can't be run as the test users here, or nil when they can (the user made if needed).
    static let missingReason: String? = {
        guard getuid() == 0 else { return "switching a child's user needs a root supervisor (CAP_SETUID, CAP_SETGID)" }
        guard getpwnam(other) != nil else { return "there is no user '\(other)'" }
        if getpwnam(name) != nil { return nil }
        let useradd = Process()
        useradd.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
        useradd.arguments = ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name]
        guard (try? useradd.run()) != nil else { return "/usr/sbin/useradd could not be run to make user '\(name)'" }
        useradd.waitUntilExit()
        return getpwnam(name) == nil ? "useradd could not make user '\(name)' (status \(useradd.terminationStatus))" : nil
    }()

    /// Why python3 (the escape probe's language) can't be run, or nil.
    static let pythonMissingReason: String? = {
        ["/usr/bin/python3", "/usr/local/bin/python3"].contains { FileManager.default.isExecutableFile(atPath: $0) }
            ? nil : "python3 is not installed"
    }()

    static func uid(_ user: String) -> UInt32 { getpwnam(user)!.pointee.pw_uid }
}

import Foundation
import Testing
import SuperviseTestSupport

/// `--user`, `--capabilities` and `--allow-new-privileges`, read back from the kernel: the
/// child's `/proc/PID/status` and what it is allowed to do (docs/security.md).
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct PrivilegeTests {
    /// `Name:\tvalue` lines of a `/proc/PID/status` the child printed, as a dictionary.
    private func statusFields(_ output: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// The child prints its own `/proc/PID/status` and the login variables.
    private static let showStatus = ["sh", "-c", "cat /proc/$$/status; echo \"ENV $HOME $USER $LOGNAME\""]

    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeTests"))
    func aUserChildHasNoCapabilitiesAnEmptyBoundingSetAndNoNewPrivileges() throws {
        let run = try Supervise.run(["--control", "none", "--user", TestUser.name, "--"] + Self.showStatus)
        #expect(run.status == 0, "\(run.stderr)")
        let fields = statusFields(run.stdout)
        let uid = TestUser.uid(TestUser.name), gid = getpwnam(TestUser.name)!.pointee.pw_gid
        #expect(fields["Uid"] == "\(uid)\t\(uid)\t\(uid)\t\(uid)", "\(run.stdout)")
        #expect(fields["Gid"] == "\(gid)\t\(gid)\t\(gid)\t\(gid)", "\(run.stdout)")
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            #expect(fields[set] == "0000000000000000", "\(set): \(run.stdout)")
        }
        #expect(fields["NoNewPrivs"] == "1", "\(run.stdout)")
        #expect(run.stdout.contains("ENV /nonexistent \(TestUser.name) \(TestUser.name)"), "as runuser sets them: \(run.stdout)")
        let reported = try #require(run.child["privileges"] as? [String: Any], "the report says what it ran with")
        #expect(reported["uid"] as? Int == Int(uid) && reported["gid"] as? Int == Int(gid), "\(reported)")
        #expect((reported["capabilities"] as? [String])?.isEmpty == true && reported["no_new_privileges"] as? Bool == true)
        let supervisor = try #require(run.report?["supervisor"] as? [String: Any])
        #expect(supervisor["uid"] as? Int == 0 && supervisor["may_switch_users"] as? Bool == true, "\(supervisor)")
        let notes = try #require(supervisor["freezer_notes"] as? [String], "\(supervisor)")
        let freezer = try #require(run.child["freezer"] as? String)
        #expect(notes.contains { $0.hasPrefix(freezer) && $0.contains("usable") }, "the picked freezer: \(notes)")
        #expect(notes.allSatisfy { run.stderr.contains($0) }, "as the log says them: \(notes) vs \(run.stderr)")
    }

    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeTests"))
    func aUserChildLeadsASessionOfItsOwn() throws {
        let run = try Supervise.run(["--control", "none", "--user", TestUser.name, "--", "sh", "-c", "echo PID=$$; ps -o sid= -p $$ | sed 's/^ */SID=/'"])
        #expect(run.status == 0, "\(run.stderr)")
        let fields = Dictionary(run.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { $1 })
        #expect(fields["PID"] != nil && fields["PID"] == fields["SID"], "setsid: \(run.stdout)")
    }

    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeTests"))
    func grantedCapabilitiesAreAmbientAndAloneInTheBoundingSet() throws {
        let run = try Supervise.run(["--control", "none", "--user", TestUser.name, "--capabilities", "cap_net_bind_service,cap_kill",
                                     "--"] + Self.showStatus)
        #expect(run.status == 0, "\(run.stderr)")
        let fields = statusFields(run.stdout)
        // CAP_KILL is 5, CAP_NET_BIND_SERVICE 10.
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            #expect(fields[set] == "0000000000000420", "\(set): \(run.stdout)")
        }
        #expect(fields["NoNewPrivs"] == "1")
        let reported = run.child["privileges"] as? [String: Any]
        #expect(reported?["capabilities"] as? [String] == ["cap_kill", "cap_net_bind_service"], "\(reported ?? [:])")
    }

    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeTests"),
          .skip("python3", because: TestUser.pythonMissingReason, in: "PrivilegeTests"))
    func onlyAGrantedUserChildBindsAPrivilegedPort() throws {
        let port = try #require(Self.freePrivilegedPort(), "no free port below 1024 on 127.0.0.1")
        let bind = ["python3", "-c", "import socket; socket.socket().bind(('127.0.0.1', \(port))); print('bound')"]
        let granted = try Supervise.run(["--control", "none", "--user", TestUser.name, "--capabilities", "cap_net_bind_service", "--"] + bind)
        #expect(granted.status == 0 && granted.stdout.contains("bound"), "\(granted.stderr)")
        let plain = try Supervise.run(["--control", "none", "--user", TestUser.name, "--"] + bind)
        #expect(plain.status == 1 && plain.stderr.contains("Permission denied"), "\(plain.stdout) \(plain.stderr)")
    }

    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeTests"))
    func allowNewPrivilegesLeavesNoNewPrivsUnset() throws {
        let run = try Supervise.run(["--control", "none", "--user", TestUser.name, "--allow-new-privileges", "--"] + Self.showStatus)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(statusFields(run.stdout)["NoNewPrivs"] == "0", "\(run.stdout)")
    }

    @Test(.skip("root", because: getuid() == 0 ? nil : "the capability sets of a root child need a root supervisor",
                in: "PrivilegeTests"))
    func capabilitiesWithoutUserConfineARootChild() throws {
        let run = try Supervise.run(["--control", "none", "--capabilities", "cap_net_bind_service", "--"] + Self.showStatus)
        #expect(run.status == 0, "\(run.stderr)")
        let fields = statusFields(run.stdout)
        #expect(fields["Uid"] == "0\t0\t0\t0")
        for set in ["CapPrm", "CapEff", "CapBnd"] {
            #expect(fields[set] == "0000000000000400", "\(set): \(run.stdout)")
        }
    }

    @Test func aChildWithoutUserKeepsTheSupervisorsCapabilities() throws {
        let mine = statusFields((try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? "")
        let run = try Supervise.run(["--control", "none", "--"] + Self.showStatus)
        #expect(run.status == 0, "\(run.stderr)")
        let fields = statusFields(run.stdout)
        for set in ["CapPrm", "CapEff", "CapBnd"] {
            #expect(fields[set] == mine[set], "\(set): \(run.stdout)")
        }
        #expect(fields["NoNewPrivs"] == mine["NoNewPrivs"])
        #expect(run.child["privileges"] is NSNull, "not confined: \(run.child["privileges"] ?? "missing")")
        let supervisor = try #require(run.report?["supervisor"] as? [String: Any])
        #expect(supervisor["uid"] as? Int == Int(getuid()), "\(supervisor)")
    }

    @Test(arguments: [
        (["--user", "no-such-user-here"], "--user: no user named 'no-such-user-here'"),
        (["--user", "root:no-such-group-here"], "--user: no group named 'no-such-group-here'"),
        (["--user", "4000000"], "--user: uid 4000000 has no passwd entry"),
        (["--capabilities", "cap_fly"], "--capabilities: unknown capability 'cap_fly'"),
    ])
    func unknownNamesAreUsageErrorsAndNothingIsLaunched(options: [String], mentions: String) throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let marker = temporary.file("launched")
        let run = try Supervise.run(options + ["--", "touch", marker])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains(mentions) && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing was launched")
    }

    @Test(.skip("--user", because: TestUser.missingReason, in: "PrivilegeTests"))
    func aFailedStepIsReportedLikeAnExecFailure() throws {
        // A working directory the user may not enter: chdir runs after the switch, as the user.
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let config = temporary.file("supervise.toml")
        try "[child.locked]\ncommand = [\"true\"]\ncwd = \"\(temporary.path)\"\nuser = \"\(TestUser.name)\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let run = try Supervise.run(["--config", config])
        #expect(run.status == 126, "\(run.stderr)")
        #expect(run.stderr.contains("cannot change to directory '\(temporary.path)': Permission denied"), "\(run.stderr)")
    }

    /// A port below 1024 nobody listens on, found by binding it as root; nil when there is none.
    private static func freePrivilegedPort() -> UInt16? {
        for port in UInt16(600)..<1000 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
        return nil
    }
}

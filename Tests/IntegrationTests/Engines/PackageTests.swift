import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// `scripts/package.sh` makes a `.deb` and a tarball that install and run where no Swift is: a
/// clean Debian root (debootstrap's minbase), entered with chroot. The demo's cycle run there proves
/// the binary's run-time dependencies are the ones the `.deb` declares (README, "Install").
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(30)))
struct PackageTests {
    static let suite = "PackageTests"
    static let missing = EngineGate.skipReason(DebianRoot.missingReason, CleanRoot.missingReason, ReleaseArtifacts.missingReason)

    /// The package each library the binary may need comes in (all in debootstrap's minbase).
    static let packageOfLibrary = ["libc.so.6": "libc6", "libm.so.6": "libc6", "libstdc++.so.6": "libstdc++6",
                                   "libgcc_s.so.1": "libgcc-s1", "libcap.so.2": "libcap2",
                                   "ld-linux-x86-64.so.2": "libc6", "ld-linux-aarch64.so.1": "libc6"]

    /// The stdin of README's demo (examples/demo.sh): one background/foreground cycle.
    static let demoCycle = "background\nwait suspended timeout=20s\nstatus\nforeground\nwait active\nterminate\n"

    @Test(.skip("the .deb's fields and files", because: missing, in: suite))
    func debHasItsFieldsAndFiles() throws {
        let made = try ReleaseArtifacts.get()
        func field(_ name: String) throws -> String {
            try runToEnd(["/usr/bin/dpkg-deb", "--field", made.deb, name]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try field("Package") == "supervise")
        #expect(try field("Version") == Self.versionNumber(), "the version of the sources")
        #expect(try field("Architecture") == Self.architecture())
        #expect(try field("Section") == "admin")
        #expect(try field("Maintainer").contains("<") && field("Description").hasPrefix("run programs under the iOS app lifecycle\n"))

        // Depends: the packages of exactly the libraries the stripped binary names (no Swift runtime).
        let unpacked = TemporaryDirectory(prefix: "supervise-deb")
        defer { unpacked.remove() }
        let extract = try runToEnd(["/usr/bin/dpkg-deb", "--extract", made.deb, unpacked.path])
        #expect(extract.status == 0, "\(extract.output)")
        let needed = try Self.neededLibraries(unpacked.file("usr/bin/supervise"))
        let unknown = needed.filter { Self.packageOfLibrary[$0] == nil }
        #expect(unknown.isEmpty, "the binary needs \(unknown), which the .deb's Depends does not name")
        let dependsField = try field("Depends")
        let depends = dependsField.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " } }.map(String.init)
        #expect(Set(depends) == Set(needed.compactMap { Self.packageOfLibrary[$0] }), "Depends: \(dependsField), NEEDED: \(needed)")
        #expect(depends.allSatisfy { dependsField.contains("\($0) (>= ") }, "each with the version its symbols need: \(dependsField)")

        let contents = try runToEnd(["/usr/bin/dpkg-deb", "--contents", made.deb])
        #expect(contents.status == 0)
        for (mode, path) in [("-rwxr-xr-x root/root", "./usr/bin/supervise"),
                             ("-rw-r--r-- root/root", "./usr/share/man/man1/supervise.1.gz"),
                             ("-rwxr-xr-x root/root", "./usr/share/doc/supervise/examples/bash/batch-job.sh"),
                             ("-rw-r--r-- root/root", "./usr/share/doc/supervise/examples/supervise.toml"),
                             ("-rw-r--r-- root/root", "./usr/share/doc/supervise/copyright"),
                             ("-rw-r--r-- root/root", "./usr/share/doc/supervise/README.md")] {
            let line = contents.output.split(separator: "\n").first { $0.hasSuffix(" " + path) }
            #expect(line?.hasPrefix(mode) == true, "\(path) in the .deb: \(line ?? "missing")")
        }
        let sections = try runToEnd(["/usr/bin/readelf", "--section-headers", "--wide", unpacked.file("usr/bin/supervise")])
        #expect(sections.status == 0 && !sections.output.contains(".symtab"), "the binary is stripped")
    }

    /// `dpkg -i` in a clean root: it installs with what minbase has, and supervise runs the demo there.
    @Test(.skip("installing the .deb in a clean root", because: missing, in: suite))
    func debInstallsInACleanRootAndRunsTheDemo() throws {
        let made = try ReleaseArtifacts.get()
        let root = try CleanRoot()
        defer { root.remove() }
        #expect(!FileManager.default.fileExists(atPath: root.file("/opt/swift")), "a clean root has no Swift")
        #expect(!FileManager.default.fileExists(atPath: root.file("/usr/lib/swift")))
        try root.copy(made.deb, to: "/tmp/supervise.deb")
        let install = try root.run(["/usr/bin/dpkg", "-i", "/tmp/supervise.deb"])
        #expect(install.status == 0, "dpkg -i: \(install.stdout)\(install.stderr)")
        let status = try root.run(["/usr/bin/dpkg-query", "--show", "--showformat", "${Status}", "supervise"])
        #expect(status.stdout == "install ok installed", "\(status.stdout)\(status.stderr)")

        let version = try root.run(["/usr/bin/supervise", "--version"])
        #expect(try version.status == 0 && version.stdout == Self.versionLine(), "\(version.stdout)\(version.stderr)")
        #expect(try Self.gunzip(root.file("/usr/share/man/man1/supervise.1.gz")) == String(contentsOfFile: ManualTests.page, encoding: .utf8),
                "the installed manual page is docs/supervise.1")
        try Self.expectDemoCycle(in: root, supervise: "/usr/bin/supervise", examples: "/usr/share/doc/supervise/examples")
        // README's demo as installed, which runs the supervise on PATH (minbase has no python3 for its timeline).
        let demo = try root.run(["/usr/share/doc/supervise/examples/demo.sh"], timeout: 40)
        #expect(demo.status == 0 && demo.stdout.contains("supervise exited with 0; checkpoint: processed=")
                && demo.stdout.hasSuffix(" final\n(python3 is not installed: no timeline)\n"), "\(demo.stdout)\(demo.stderr)")
    }

    /// The Depends are real: on a root without libcap2, `dpkg -i` refuses to configure supervise and
    /// names it, and the unpacked binary can't start. (With it, as minbase has it, the test above passes.)
    @Test(.skip("installing the .deb in a root without libcap2", because: missing, in: suite))
    func debIsRefusedWhereADependencyIsMissing() throws {
        let made = try ReleaseArtifacts.get()
        let root = try CleanRoot()
        defer { root.remove() }
        let purge = try root.run(["/usr/bin/dpkg", "--purge", "--force-depends", "libcap2"])
        #expect(purge.status == 0, "\(purge.stdout)\(purge.stderr)")
        try root.copy(made.deb, to: "/tmp/supervise.deb")
        let install = try root.run(["/usr/bin/dpkg", "-i", "/tmp/supervise.deb"])
        #expect(install.status == 1, "dpkg -i: \(install.stdout)\(install.stderr)")
        let said = install.stdout + install.stderr
        #expect(said.contains("supervise depends on libcap2") && said.contains("Package libcap2 is not installed"), "\(said)")
        let status = try root.run(["/usr/bin/dpkg-query", "--show", "--showformat", "${Status}", "supervise"])
        #expect(status.stdout == "install ok unpacked", "\(status.stdout)\(status.stderr)")
        let run = try root.run(["/usr/bin/supervise", "--version"])
        #expect(run.status == 127 && run.stderr.contains("libcap.so.2: cannot open shared object file"), "\(run.stderr)")
    }

    /// The tarball is a prefix: unpacked into /usr/local of a clean root, its binary runs the demo.
    @Test(.skip("the tarball in a clean root", because: missing, in: suite))
    func tarballRunsInACleanRoot() throws {
        let made = try ReleaseArtifacts.get()
        let name = URL(fileURLWithPath: made.tarball).lastPathComponent.replacingOccurrences(of: ".tar.gz", with: "")
        #expect(try name == "supervise-\(Self.versionNumber())-linux-\(Self.architecture())")
        let listing = try runToEnd(["/usr/bin/tar", "-tzvf", made.tarball])
        for (mode, path) in [("-rwxr-xr-x 0/0", "bin/supervise"), ("-rw-r--r-- 0/0", "share/man/man1/supervise.1.gz"),
                             ("-rwxr-xr-x 0/0", "share/doc/supervise/examples/bash/batch-job.sh")] {
            let line = listing.output.split(separator: "\n").first { $0.hasSuffix(" \(name)/\(path)") }
            #expect(line?.hasPrefix(mode) == true, "\(path) in the tarball: \(line ?? "missing")")
        }

        let root = try CleanRoot()
        defer { root.remove() }
        let unpack = try runToEnd(["/usr/bin/tar", "-xzf", made.tarball, "-C", root.file("/usr/local"), "--strip-components=1"])
        #expect(unpack.status == 0, "\(unpack.output)")
        let run = try root.run(["/usr/local/bin/supervise", "--version"])
        #expect(try run.status == 0 && run.stdout == Self.versionLine(), "\(run.stdout)\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: root.file("/usr/local/share/man/man1/supervise.1.gz")))
        try Self.expectDemoCycle(in: root, supervise: "/usr/local/bin/supervise", examples: "/usr/local/share/doc/supervise/examples")
    }

    /// The debug build's `supervise`, beside the test bundle, whichever one the tests run: it links
    /// the Swift runtime dynamically.
    static let debugBinary = Supervise.built("supervise")
    /// Why the debug build's binary can't stand for one that needs the Swift runtime, or nil.
    static let runtimeLinkedIn: String? = (try? neededLibraries(debugBinary))?.contains { $0.hasPrefix("libswiftCore") } == true
        ? nil : "\(debugBinary) does not need the Swift runtime"

    /// A binary that needs the Swift runtime (the debug build beside the test bundle) would not start where the
    /// `.deb` goes, and dpkg-shlibdeps only warns about it: package.sh refuses it and makes nothing.
    @Test(.skip("packaging a binary that needs the Swift runtime", because: ReleaseArtifacts.missingReason ?? runtimeLinkedIn, in: suite))
    func aBinaryThatNeedsTheSwiftRuntimeIsRefused() throws {
        let output = TemporaryDirectory(prefix: "supervise-dist")
        defer { output.remove() }
        let result = try runToEnd([DebianRoot.packageRoot + "/scripts/package.sh", "--binary", Self.debugBinary, output.path])
        #expect(result.status == 1)
        let refusal = result.output.split(separator: "\n").last ?? ""
        #expect(refusal.hasPrefix("package.sh: the binary needs the Swift runtime (libswift")
                && refusal.hasSuffix("), which no Debian root has: package the release build"), "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty, "nothing made")
    }

    // MARK: Helpers

    /// README's demo in `root`: the installed bash batch job through one background/foreground
    /// cycle, with its checkpoint and the report checked from outside.
    static func expectDemoCycle(in root: CleanRoot, supervise: String, examples: String) throws {
        let run = try root.run(["/usr/bin/env", "CHECKPOINT=/tmp/checkpoint.txt", supervise, "--window", "2",
                                "--report", "/tmp/report.json", "--", examples + "/bash/batch-job.sh"],
                               stdin: demoCycle, timeout: 40)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("supervise: batch-job.sh: suspended"), "\(run.stderr)")
        #expect(run.stdout.contains("\"state\":\"suspended\""), "status while suspended: \(run.stdout)")
        let checkpoint = try? String(contentsOfFile: root.file("/tmp/checkpoint.txt"), encoding: .utf8)
        #expect(checkpoint?.hasPrefix("processed=") == true && checkpoint?.hasSuffix(" final\n") == true, "\(checkpoint ?? "no checkpoint")")
        let data = try Data(contentsOf: URL(fileURLWithPath: root.file("/tmp/report.json")))
        let report = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let child = (report?["children"] as? [[String: Any]])?.first
        let states = (child?["timeline"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "state" }.compactMap { $0["text"] as? String }
        #expect(report?["exit_status"] as? Int == 0)
        #expect(states == ["active", "background", "suspending", "suspended", "active", "terminating", "exited"], "\(states)")
    }

    /// What `supervise --version` prints, as the binary the tests use (built from the same sources) says it.
    static func versionLine() throws -> String {
        try runToEnd([Supervise.binary, "--version"]).output
    }

    /// The number in it: `0.9.0`.
    static func versionNumber() throws -> String {
        String(try versionLine().split(separator: " ")[1])
    }

    static func architecture() throws -> String {
        try runToEnd(["/usr/bin/dpkg", "--print-architecture"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The libraries `objdump -p` says the binary needs (its NEEDED entries).
    static func neededLibraries(_ binary: String) throws -> [String] {
        let result = try runToEnd(["/usr/bin/objdump", "-p", binary])
        guard result.status == 0 else { throw SetupFailure("objdump -p \(binary): \(result.output)") }
        return result.output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            return words.count == 2 && words[0] == "NEEDED" ? String(words[1]) : nil
        }
    }

    static func gunzip(_ path: String) throws -> String {
        try runToEnd(["/bin/gzip", "-dc", path]).output
    }
}
}

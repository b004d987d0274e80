import Foundation
import SuperviseTestSupport
import Testing

/// Without `/proc` mounted (a bare chroot, a private mount namespace that unmounted it), supervise
/// still reads its arguments, and a run, which needs `/proc` to find and check its children, is
/// refused in one line before anything is launched (issue 26).
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct NoProcTests {
    /// Why `/proc` can't be unmounted in a private mount namespace here, or `nil`.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: PIDNamespace.unshare) else {
            return "util-linux's unshare is not installed"
        }
        return getuid() == 0 ? nil : "a private mount namespace needs root"
    }()

    /// `supervise ARGUMENTS` in a private mount namespace where /proc is unmounted.
    func withoutProc(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runToEnd([PIDNamespace.unshare, "--mount", "/bin/sh", "-c",
                      "umount -l /proc && test ! -e /proc/self && exec \"$0\" \"$@\"", Supervise.binary] + arguments)
    }

    @Test(.skip("unmounting /proc", because: unavailableReason, in: "NoProcTests"))
    func argumentsAreReadWithoutProc() throws {
        let version = try withoutProc(["--version"])
        #expect(version.status == 0, "\(version.output)")
        #expect(version.output.hasPrefix("supervise "), "\(version.output)")
        let usage = try withoutProc(["--window", "nonsense", "--", "true"])
        #expect(usage.status == 2, "\(usage.output)")
        #expect(usage.output.contains("--window"), "the mistake it names is the one given: \(usage.output)")
    }

    @Test(.skip("unmounting /proc", because: unavailableReason, in: "NoProcTests"))
    func aRunWithoutProcIsRefusedInOneLine() throws {
        let marker = TemporaryDirectory()
        defer { marker.remove() }
        let launched = marker.file("launched")
        let run = try withoutProc(["--control", "none", "--", "/bin/sh", "-c", "touch \(launched)"])
        #expect(run.status == 125, "\(run.output)")
        #expect(run.output.contains("supervise: error: /proc can't be read (/proc/self/stat: no such file or directory): it is how "
                                    + "every freezer finds and checks the children; mount /proc (mount -t proc proc /proc)"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: launched), "nothing is launched")
    }

    @Test(.skip("unmounting /proc", because: unavailableReason, in: "NoProcTests"))
    func doctorSaysNoFreezerWorksWithoutProc() throws {
        let doctor = try withoutProc(["doctor"])
        #expect(doctor.status == 0, "\(doctor.output)")
        #expect(doctor.output.contains("freezer sigstop: not usable: /proc can't be read"), "\(doctor.output)")
        #expect(doctor.output.contains("freezer auto: none: a run is refused"), "\(doctor.output)")
    }
}

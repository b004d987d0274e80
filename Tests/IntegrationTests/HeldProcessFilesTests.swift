import Foundation
import SuperviseTestSupport
import Testing

/// The sigstop freezer holds the `/proc` files of its child's main process open, and its own
/// (docs/freezers.md, "Held files"), through the real binary: the supervisor's descriptors name
/// the child running now and no earlier one, and the freeze and thaw made through them are
/// true to the process.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct HeldProcessFilesTests {
    /// The pids whose `/proc` entries `supervisor` has open, by where its descriptors lead.
    func heldPIDs(of supervisor: Int32) -> Set<Int32> {
        let descriptors = "/proc/\(supervisor)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
        return Set(names.compactMap { name -> Int32? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\(name)"),
                  target.hasPrefix("/proc/") else { return nil }
            return Int32(target.split(separator: "/")[1])
        })
    }

    /// The main process's pid in a `status` answer.
    func mainPID(_ live: LiveSupervise) -> Int32? {
        (live.status()?["pid"] as? Int).map(Int32.init)
    }

    @Test func theRunningChildsFilesAreHeldAndARestartReleasesTheLastOnes() throws {
        let live = try LiveSupervise(["--freezer", "sigstop", "--window", "0", "--freeze-timeout", "5", "--", "sleep", "1000"])
        defer { live.stop() }
        let first = try #require(mainPID(live))
        #expect(eventually { heldPIDs(of: live.pid) == [live.pid, first] }, "held: \(heldPIDs(of: live.pid))")

        live.send("background")
        #expect(live.wait(for: "suspended") == "suspended", "\(live.log)")
        #expect(ProcessInspector.isStopped(first), "suspended, yet \(first) is not stopped")
        live.send("foreground")
        #expect(live.wait(for: "active") == "active", "\(live.log)")
        #expect(!ProcessInspector.isStopped(first), "active, yet \(first) is stopped")

        live.send("restart")
        var second: Int32?
        #expect(eventually(timeout: 20) {
            second = mainPID(live).flatMap { $0 != first ? $0 : nil }
            return second != nil
        }, "\(live.log)")
        let now = try #require(second)
        #expect(eventually { heldPIDs(of: live.pid) == [live.pid, now] }, "held: \(heldPIDs(of: live.pid)), child \(now)")
        live.send("background")
        #expect(live.wait(for: "suspended") == "suspended", "\(live.log)")
        #expect(ProcessInspector.isStopped(now), "suspended, yet \(now) is not stopped")
        #expect(live.terminate() == 0, "\(live.log)")
    }
}

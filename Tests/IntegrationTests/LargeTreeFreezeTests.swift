import Foundation
import Testing
import SuperviseTestSupport

/// A large tree frozen with `--freezer sigstop` is stopped in slices, one turn of the loop each
/// (issue 29): the supervisor answers `ctl` meanwhile, and says `suspended` only once every
/// process of the tree is stopped.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct LargeTreeFreezeTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()

    /// The child's state as a `status` on the control socket gives it, or `nil` when it answered
    /// nothing. Asked on the socket itself, not through a `supervise ctl` process: a process's
    /// start on a loaded machine could take longer than the whole freeze.
    func socketState(_ socket: String) throws -> String? {
        let lines = try UnixSocket.ask(socket, "status")
        guard lines.last == "ok", let line = lines.first,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return object["state"] as? String
    }

    /// `background` to a child of 3,000 processes, then `status` on the socket again and again: the first
    /// answer past `background` says `suspending` — answered while the tree was being stopped,
    /// not after — and once `suspended`, every process of the tree is in `T`.
    @Test func ctlStatusIsAnsweredWhileATreeOfThreeThousandIsFrozen() throws {
        let socket = temporary.file("control"), ready = temporary.file("ready")
        let live = try LiveSupervise(["--freezer", "sigstop", "--window", "0", "--freeze-timeout", "120", "--control", "stdin",
                                      "--socket", socket, "--", "python3", Supervise.worker("fork-tree.py"), "3000", ready])
        defer { live.stop() }
        try #require(eventually(timeout: 60) { FileManager.default.fileExists(atPath: ready) }, "the tree never grew: \(live.log)")
        let pid = try #require(Int32(String(contentsOfFile: ready, encoding: .utf8)))
        #expect(ProcessInspector.tree(of: pid).filter(\.isAlive).count == 3000)

        live.send("background")
        var before = 0, during: String?
        while before < 20_000 {
            during = try socketState(socket)
            guard let state = during, ["active", "background"].contains(state) else { break }
            before += 1
        }
        #expect(during == "suspending", "answered only after the freeze: \(during ?? "nothing"), after \(before) answers")

        #expect(live.wait(for: "suspended", timeout: 120) == "suspended", "\(live.log)")
        let running = ProcessInspector.tree(of: pid).filter { $0.isAlive && $0.state != "T" }
        #expect(running.isEmpty, "suspended while \(running.count) processes ran: \(running.prefix(3))")
        #expect(live.terminate(timeout: 60) == 0)
    }
}

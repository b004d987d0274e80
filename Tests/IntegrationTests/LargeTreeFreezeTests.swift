import Foundation
import Testing
import SuperviseTestSupport

/// A large tree frozen with `--freezer sigstop` is stopped in slices, one turn of the loop each
/// (issue 29): the supervisor answers `ctl` meanwhile, and says `suspended` only once every
/// process of the tree is stopped. The look at the stopped tree before a `status`, and its
/// thaw, are sliced too.
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

        // A `status` waits for its look at the 3,000 stopped processes, done over several turns:
        // a `version` sent on another connection just after it is answered first. Both answers
        // already there at the first look say nothing of the order (this process was not
        // running): tried again.
        var order = "both", tries = 0
        while order == "both", tries < 5 {
            tries += 1
            order = try Self.firstAnswered(socket, "status", then: "version")
        }
        #expect(order == "second", "the status after \(tries) tries: \(order)")
        #expect(try socketState(socket) == "suspended")

        // On stdin too: `foreground` waits for its look, then thaws every process. The `wait`
        // after it waits for the thaw, and is judged as soon as the thaw ends, not at its timeout.
        live.send("foreground")
        live.send("wait active timeout=600s")
        #expect(live.status(timeout: 60)?["state"] as? String == "active", "\(live.log)")
        let stopped = ProcessInspector.tree(of: pid).filter { $0.isAlive && $0.state == "T" }
        #expect(stopped.isEmpty, "active while \(stopped.count) processes were stopped: \(stopped.prefix(3))")

        // The thaw goes in slices too: `foreground` is answered once the thaw has begun, a
        // `wait` sent just after that waits for the thaw's end (and is answered then, not at its
        // timeout), and a `version` sent after the `wait` is answered first. Both answers there at
        // the first look say nothing (this process was not running): the tree is frozen and
        // thawed again.
        var thawOrder = "both"
        tries = 0
        while thawOrder == "both", tries < 3 {
            tries += 1
            live.send("background")
            #expect(live.wait(for: "suspended", timeout: 120) == "suspended", "\(live.log)")
            #expect(try UnixSocket.ask(socket, "foreground", timeout: 60).last == "ok")
            thawOrder = try Self.firstAnswered(socket, "wait active timeout=600s", then: "version")
        }
        #expect(thawOrder == "second", "the wait after a foreground, after \(tries) tries: \(thawOrder)")
        #expect(try socketState(socket) == "active")
        let stoppedAfter = ProcessInspector.tree(of: pid).filter { $0.isAlive && $0.state == "T" }
        #expect(stoppedAfter.isEmpty, "active while \(stoppedAfter.count) processes were stopped: \(stoppedAfter.prefix(3))")
        #expect(live.terminate(timeout: 60) == 0)
    }

    /// A tree of 600 (more than a turn's budget of steps, so freezes, looks and thaws all go on
    /// over turns) sent seeded random bursts of commands back to back — `background`,
    /// `foreground`, a signal to the tree — then a `wait` and a `status` for the state the last
    /// move asked for: the answer must be true of every process (`suspended`: all stopped;
    /// `active`: none). The seed is printed; `SUPERVISE_SEED` replays it.
    @Test func randomBurstsOfCommandsToALargeTreeTellTheTruth() throws {
        let seed = Seed(from: "SUPERVISE_SEED")
        print("LargeTreeFreezeTests: replay: \(seed.replay())")
        var random = SeededGenerator(seed: seed.value)
        let ready = temporary.file("ready")
        let live = try LiveSupervise(["--freezer", "sigstop", "--window", "0", "--freeze-timeout", "60", "--control", "stdin",
                                      "--", "python3", Supervise.worker("fork-tree.py"), "600", ready])
        defer { live.stop() }
        try #require(eventually(timeout: 60) { FileManager.default.fileExists(atPath: ready) }, "the tree never grew: \(live.log)")
        let pid = try #require(Int32(String(contentsOfFile: ready, encoding: .utf8)))
        let moves = ["background", "foreground", "signal all WINCH tree"]
        var wanted = "active"
        for step in 1...8 {
            let burst = (0..<Int.random(in: 1...4, using: &random)).map { _ in moves.randomElement(using: &random)! }
            for move in burst where move == "background" || move == "foreground" {
                wanted = move == "background" ? "suspended" : "active"
            }
            live.send(burst)
            let said = live.wait(for: wanted, timeout: 60)
            let tree = ProcessInspector.tree(of: pid).filter(\.isAlive)
            let wrong = tree.filter { ($0.state == "T") != (wanted == "suspended") }
            #expect(said == wanted && wrong.isEmpty && tree.count == 600,
                    "\(seed.replay()), step \(step) \(burst): said \(said ?? "nothing") for \(wanted), \(wrong.count) of \(tree.count) processes disagree: \(wrong.prefix(3))")
        }
        #expect(live.terminate(timeout: 60) == 0, "\(live.log)")
    }

    /// 300 sigstop children of one process each, all suspended: a `status` looks at each, more
    /// than one turn's budget of looks, and waits for them; once they are over it is answered.
    /// It once looked again at every child whose look had ended in an earlier turn, so that the
    /// looks never ended all at once and it waited forever.
    @Test func aStatusOfThreeHundredSuspendedChildrenIsAnswered() throws {
        let config = temporary.file("many.toml")
        try ("window = 0\nfreezer = \"sigstop\"\n" + (0..<300).map { "[child.c\($0)]\ncommand = [\"sleep\", \"600\"]\n" }.joined())
            .write(toFile: config, atomically: true, encoding: .utf8)
        let run = try Supervise.run(["--config", config],
                                    stdin: "background all\nwait suspended all timeout=60s\nstatus\nterminate all\n", timeout: 120)
        let states = run.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"name\":") }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap { $0["state"] as? String }
        #expect(states.count == 300 && states.allSatisfy { $0 == "suspended" }, "\(states.count) answers: \(Set(states)); \(run.stderr.suffix(500))")
        #expect(run.status == 0, "\(run.stderr.suffix(500))")
    }

    /// Sends `first` and, at once, `then` on a connection of its own: "first" or "second", the
    /// one whose answer came first, or "both" when both were there at the first look; what it
    /// says of one whose answer did not follow within 30 s too.
    static func firstAnswered(_ socket: String, _ first: String, then second: String) throws -> String {
        let fds = [try UnixSocket.connect(socket), try UnixSocket.connect(socket)]
        defer { fds.forEach { close($0) } }
        for (fd, command) in zip(fds, [first, second]) {
            let line = Array((command + "\n").utf8)
            guard write(fd, line, line.count) == line.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        var pollers = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&pollers, 2, 30_000) > 0 else { return "neither within 30 s" }
        let order: String
        switch (pollers[0].revents & Int16(POLLIN) != 0, pollers[1].revents & Int16(POLLIN) != 0) {
        case (true, true): return "both"
        case (true, false): order = "first"
        default: order = "second"
        }
        var other = pollfd(fd: order == "first" ? fds[1] : fds[0], events: Int16(POLLIN), revents: 0)
        return poll(&other, 1, 30_000) > 0 ? order : order + ", and the other unanswered within 30 s"
    }
}

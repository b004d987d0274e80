import Foundation
import Testing

/// Malformed requests are answered with `error` and change nothing.
@Suite struct ProtocolErrorTests {
    @Test func malformedRequestsAreAnsweredAndTheSupervisorKeepsGoing() throws {
        let directory = Supervise.temporaryDirectory()
        let log = directory.appendingPathComponent("events.log").path
        let long = String(repeating: "x", count: 2000)
        let requests = ["fly away", "begin bad!id", "end nope", "hello 2", "done x", "begin \(long)", "begin t9 still fine"]
        let run = try Supervise.run(["--", Supervise.worker("aware-worker.sh")],
                                    stdin: "sleep 0.5\nstatus\nterminate\n",
                                    environment: ["WORKER_LOG": log, "WORKER_REQUESTS": requests.joined(separator: "|")])
        let events = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(events.contains("error unknown-request fly away"))
        #expect(events.contains("error bad-id begin bad!id"))
        #expect(events.contains("error unknown-id end nope"))
        #expect(events.contains("error bad-version hello 2"))
        #expect(events.contains("error stale-done done x"))
        let tooLong = events.first { $0.hasPrefix("error line-too-long ") }
        #expect(tooLong != nil)
        #expect((tooLong?.utf8.count ?? 0) <= 200 + "error line-too-long ".utf8.count)
        #expect(run.stdout.contains("\"id\":\"t9\""), "a good request after the bad ones still counts")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.timeline("error").count == 6)
    }
}

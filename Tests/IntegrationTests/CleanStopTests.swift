import Foundation
import Testing
import SuperviseTestSupport

/// A program that handles the stop signal and exits with 128 + its number stopped cleanly, as one
/// that exits 0 or dies of the signal did: the JVM after its shutdown hooks, a shell's trap.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct CleanStopTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }

    static let java: String? = ["/usr/bin/java", "/usr/local/bin/java"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// A single-file Java program that says it is ready once its shutdown hook is in place, and
    /// whose hook writes `hook` in its directory.
    static let javaProgram = """
        import java.nio.file.*;
        public class Main {
            public static void main(String[] arguments) throws Exception {
                Path directory = Path.of(arguments[0]);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try { Files.writeString(directory.resolve("hook"), "ran"); } catch (Exception error) {}
                }));
                Files.writeString(directory.resolve("ready"), "ready");
                Thread.sleep(600_000);
            }
        }
        """

    /// Runs `command` until `ready` exists, then sends the supervisor SIGTERM (terminate every child).
    func terminateOnceReady(_ arguments: [String], ready: String, startup: Double = 10) throws -> SuperviseRun {
        try Supervise.run(arguments, timeout: startup + 40, whileRunning: { process in
            #expect(eventually(timeout: startup) { FileManager.default.fileExists(atPath: ready) }, "never ready")
            kill(process.processIdentifier, SIGTERM)
        })
    }

    @Test(.skip("java", because: java == nil ? "java is not installed (scripts/setup-debian.sh installs it)" : nil,
                in: "CleanStopTests"))
    func aJVMThatRunsItsShutdownHooksAndExits143StoppedCleanly() throws {
        let source = directory.appendingPathComponent("Main.java").path
        try Self.javaProgram.write(toFile: source, atomically: true, encoding: .utf8)
        // The JVM compiles the source at start: slow on a loaded machine.
        let run = try terminateOnceReady(["--grace", "30", "--", Self.java!, source, directory.path],
                                         ready: directory.appendingPathComponent("ready").path, startup: 90)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("hook").path),
                "the shutdown hook did not run: \(run.stderr)")
        #expect(run.exit["status"] as? Int == 143, "\(run.exit)")
        #expect(run.exit["by"] as? String == "terminate", "\(run.exit)")
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func aShellTrapThatExits143StoppedCleanly() throws {
        let ready = directory.appendingPathComponent("ready").path
        let run = try terminateOnceReady(["--grace", "30", "--", "sh", "-c", "trap 'exit 143' TERM; touch \(ready); "
                                          + "while :; do sleep 0.05; done"], ready: ready)
        #expect(run.exit["status"] as? Int == 143, "\(run.exit)")
        #expect(run.exit["by"] as? String == "terminate", "\(run.exit)")
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func withStopSignalINTAShellTrapThatExits130StoppedCleanly() throws {
        let ready = directory.appendingPathComponent("ready").path
        let run = try terminateOnceReady(["--stop-signal", "INT", "--grace", "30", "--", "sh", "-c",
                                          "trap 'exit 130' INT; touch \(ready); while :; do sleep 0.05; done"], ready: ready)
        #expect(run.exit["status"] as? Int == 130, "\(run.exit)")
        #expect(run.exit["by"] as? String == "terminate", "\(run.exit)")
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func exiting143ForAnotherStopSignalStillCounts() throws {
        let ready = directory.appendingPathComponent("ready").path
        let run = try terminateOnceReady(["--stop-signal", "INT", "--grace", "30", "--", "sh", "-c",
                                          "trap 'exit 143' INT; touch \(ready); while :; do sleep 0.05; done"], ready: ready)
        #expect(run.exit["by"] as? String == "terminate", "\(run.exit)")
        #expect(run.status == 143, "\(run.stderr)")
    }
}

import Foundation
import Testing
import SuperviseTestSupport

/// A working directory with the docs' placeholders, and `supervise` on `PATH` as a wrapper of the built binary.
final class DocPlace: @unchecked Sendable {
    let directory = TemporaryDirectory(prefix: "supervise-doc-cwd")
    let tools = TemporaryDirectory(prefix: "supervise-doc-bin")

    struct Result {
        var ended: Bool
        var status: Int32
        var statuses: [Int32]
        var stdout: String
        var stderr: String
    }

    init() throws {
        let repository = DocCommandTests.repository
        let worker = Supervise.worker("aware-worker.sh")
        func write(_ path: String, _ text: String, executable: Bool = false) throws {
            if executable { try writeProgram(path, text) } else { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        }
        // ./worker, ./api, ./batch: the tests' protocol worker (named by the file, so `event worker …` reaches it).
        for name in ["worker", "api", "batch"] {
            try write(directory.file(name), "#!/bin/sh\nexec bash '\(worker)'\n", executable: true)
        }
        try write(directory.file("job.py"), "import time\ntime.sleep(30)\n")
        try write(directory.file("supervise.toml"), "[child.worker]\ncommand = [\"bash\", \"\(worker)\"]\n")
        // docs/report.md's JUnit example: a worker that holds task t1 past its 1 s limit, and a child that exits 0.
        try write(directory.file("ci.toml"), """
            [child.worker]
            command = ["bash", "\(worker)"]
            limit = "1s"
            env = { WORKER_ON_BACKGROUND = "hold" }

            [child.check]
            command = ["true"]

            """)
        // Paths the docs give from the repository's top.
        for name in ["examples", "Tests"] {
            try? FileManager.default.createSymbolicLink(atPath: directory.file(name),
                                                        withDestinationPath: repository.appendingPathComponent(name).path)
        }
        try write(tools.file("supervise"), """
            #!/bin/sh
            '\(Supervise.binary)' "$@"
            status=$?
            echo $status >> '\(tools.file("statuses"))'
            exit $status

            """, executable: true)
    }

    func remove() {
        directory.remove()
        tools.remove()
    }

    /// Runs `script` with `/bin/sh -c` here; after `timeout` seconds kills it and every process below it.
    func run(_ script: String, stdin: String, timeout: Double) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory.url
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = tools.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TMPDIR"] = directory.path
        process.environment = environment
        let input = Pipe.closedOnExec()
        process.standardInput = input
        let captured = CapturedOutput(of: process)
        try process.run()
        input.fileHandleForWriting.writeUnlessReaderEnded(stdin)
        try? input.fileHandleForWriting.close()
        let ended = eventually(timeout: timeout, interval: 0.02) { !process.isRunning }
        if !ended {
            let below = ProcessInspector.descendants(of: process.processIdentifier).map(\.pid)
            for pid in below + [process.processIdentifier] { kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
        // Read to the end, unless something the command started still holds its output.
        captured.expectEnd(of: "the doc command", timeout: 5)
        let statuses = ((try? String(contentsOfFile: tools.file("statuses"), encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { Int32($0) }
        return Result(ended: ended, status: process.terminationStatus, statuses: statuses,
                      stdout: captured.stdout, stderr: captured.stderr)
    }
}

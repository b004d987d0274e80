import Foundation
import SuperviseTestSupport

/// A throwaway PostgreSQL cluster in a temporary directory, owned by the `postgres` user
/// (initdb and postgres refuse to run as root: supervise runs both with `--user`/`user`),
/// serving on 127.0.0.1 and a socket of its own.
struct PostgresCluster {
    /// The newest `/usr/lib/postgresql/N/bin` with the server and client programs, as Debian lays them out.
    static let binDirectory: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init)
        return versions.sorted(by: >).map { "\(root)/\($0)/bin" }.first { directory in
            ["initdb", "postgres", "psql", "pg_isready"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: directory + "/" + $0)
            }
        }
    }()

    /// Why PostgreSQL can't be run here, or nil when it can.
    static var missingReason: String? {
        if binDirectory == nil { return "PostgreSQL is not installed: no /usr/lib/postgresql/N/bin with initdb, postgres, psql, pg_isready" }
        if getpwnam("postgres") == nil { return "there is no user 'postgres' to run PostgreSQL as" }
        if getuid() != 0 { return "PostgreSQL must be started as user 'postgres' (supervise --user), which needs root" }
        return nil
    }

    private let temporary = TemporaryDirectory(prefix: "supervise-postgres")
    var directory: URL { temporary.url }
    let port: UInt16
    var dataDirectory: String { directory.appendingPathComponent("data").path }
    var socketDirectory: String { directory.path }

    /// Makes the directory and runs initdb in it (trust authentication, no fsync: it is thrown away).
    init() throws {
        guard let port = Loopback.freePort() else { throw SetupFailure("no free port on 127.0.0.1") }
        self.port = port
        guard let user = getpwnam("postgres"), chown(directory.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw SetupFailure("could not give \(directory.path) to user postgres")
        }
        let initdb = try Self.run([Supervise.binary, "--control", "none", "--log-level", "error", "--user", "postgres", "--",
                                   Self.program("initdb"), "-D", dataDirectory, "-U", "postgres", "-A", "trust",
                                   "--no-sync", "--no-instructions"])
        guard initdb.status == 0 else {
            remove()
            throw SetupFailure("initdb failed (\(initdb.status)): \(initdb.output)")
        }
    }

    /// `examples/postgres/postgres.toml` with this cluster's server, directory and port, written
    /// into the directory: the server runs as `postgres` by the config's `user`, with nothing
    /// between supervise and the postmaster.
    func writeConfig() throws -> String {
        var text = try String(contentsOfFile: ExampleTests.example("postgres/postgres.toml"), encoding: .utf8)
        for (from, to) in [("/usr/lib/postgresql/15/bin", Self.binDirectory ?? ""),
                           ("/var/tmp/supervise-postgres", directory.path), ("\"5432\"", "\"\(port)\"")] {
            guard text.contains(from) else { throw SetupFailure("examples/postgres/postgres.toml no longer has \(from)") }
            text = text.replacingOccurrences(of: from, with: to)
        }
        let path = directory.appendingPathComponent("supervise.toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Whether the server answers within about `timeout` seconds (libpq waits at least 2 s).
    func isReady(timeout: Int = 2) -> Bool {
        (try? Self.run([Self.program("pg_isready"), "-q", "-t", "\(timeout)"] + connection))?.status == 0
    }

    /// Starts `psql -c SQL` as a client of the server, its output going to `queryOutput`.
    func startQuery(_ sql: String) throws -> Process {
        let process = Process(), output = try emptyFileForWriting(queryOutputPath)
        process.executableURL = URL(fileURLWithPath: Self.program("psql"))
        process.arguments = connection + ["-d", "postgres", "-X", "-c", sql]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()
        return process
    }

    /// What the query's psql printed.
    var queryOutput: String { (try? String(contentsOfFile: queryOutputPath, encoding: .utf8)) ?? "" }

    /// The postmaster's pid from `postmaster.pid`, if the file is there.
    var postmasterPid: Int32? {
        let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        return text?.split(separator: "\n").first.flatMap { Int32($0) }
    }

    func remove() {
        temporary.remove()
    }

    private var queryOutputPath: String { directory.appendingPathComponent("query.out").path }

    private var connection: [String] { ["-h", socketDirectory, "-p", "\(port)", "-U", "postgres"] }

    private static func program(_ name: String) -> String { (binDirectory ?? "") + "/" + name }

    /// Runs a command to its end, with its stdout and stderr together.
    private static func run(_ command: [String]) throws -> (status: Int32, output: String) {
        let process = Process(), pipe = Pipe.closedOnExec()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

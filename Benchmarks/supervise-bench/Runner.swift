import Foundation

/// Where the harness finds and puts things.
struct Paths {
    /// The repository root, found from this source file's location.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var probes: URL { root.appendingPathComponent("Benchmarks/probes") }
    var results: URL { root.appendingPathComponent("bench-results") }
    var bin: URL { results.appendingPathComponent("bin") }
    var scratch: URL { results.appendingPathComponent("scratch") }
    /// The supervise executable built next to this one (same configuration).
    var supervise: URL { sibling("supervise") }
    /// The floors under supervise, by the names the figures give them: a Swift program that only
    /// starts a command and waits for it, linked as supervise is, without and with ArgumentParser
    /// (Benchmarks/floor-swift, floor-parser).
    var floors: [(name: String, path: String)] {
        [("floor: Swift", sibling("floor-swift").path), ("floor: Swift + ArgumentParser, 5 options", sibling("floor-parser").path)]
    }
    /// An executable of this package built next to this one.
    private func sibling(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name)
    }
    func probe(_ name: String) -> String { bin.appendingPathComponent("bench-" + name).path }
}

/// A failure that ends the run, with one line saying what to do.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `arguments` to its end; returns its standard output. Standard error goes to `log`.
@discardableResult
func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
         log: URL? = nil, timeout: TimeInterval = 300) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    if let log {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
    } else {
        process.standardError = FileHandle.nullDevice
    }
    let input = Pipe()
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
    }
    let deadline = DispatchTime.now() + timeout
    let timer = DispatchSource.makeTimerSource()
    timer.schedule(deadline: deadline)
    timer.setEventHandler { if process.isRunning { process.terminate() } }
    timer.resume()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    timer.cancel()
    guard process.terminationReason == .exit, process.terminationStatus == 0 || process.terminationStatus == 143 else {
        let where_ = log.map { " (its log: \($0.path))" } ?? ""
        throw BenchError("`\(arguments.joined(separator: " "))` failed with status \(process.terminationStatus)\(where_)")
    }
    return String(decoding: data, as: UTF8.self)
}

/// Starts `arguments` in the background with no standard streams (a daemon or an idle subject).
func startQuietly(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// The "sample FIGURE VALUE" lines a probe printed, grouped by figure.
func samples(in output: String) -> [String: [Double]] {
    var result: [String: [Double]] = [:]
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count == 3, fields[0] == "sample", let value = Double(fields[2]) else { continue }
        result[String(fields[1]), default: []].append(value)
    }
    return result
}

/// Compiles the C probes into bench-results/bin with `cc -O2`.
func buildProbes(_ paths: Paths) throws {
    try FileManager.default.createDirectory(at: paths.bin, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: paths.scratch, withIntermediateDirectories: true)
    for name in ["child", "driver", "floor"] {
        try run(["cc", "-O2", "-Wall", "-o", paths.probe(name), paths.probes.appendingPathComponent(name + ".c").path])
    }
}

/// The first directory on PATH holding `program`, or nil.
func which(_ program: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(directory)/\(program)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

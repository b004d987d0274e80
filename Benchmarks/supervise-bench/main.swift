import Foundation

/// supervise-bench [--quick | --full] [--only FIGURE,...] [--compare SUPERVISE]
///
/// Measures supervise against its peers and the kernel's floors, prints a table and
/// writes bench-results/latest.json. `--compare` adds another supervise build (another
/// branch's, say) to the startup, idle, scale and binary figures, measured in the same turns.
/// See docs/performance.md.
let arguments = CommandLine.arguments.dropFirst()
let usage = "usage: supervise-bench [--quick | --full] [--only latency,relaunch,pause,timers,startup,idle,scale,throughput,binary,ctl,pressure] [--compare SUPERVISE]"
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
let full = arguments.contains("--full")
let all = ["latency", "relaunch", "pause", "timers", "startup", "idle", "scale", "throughput", "binary", "ctl", "pressure"]
var selected = all
if let index = arguments.firstIndex(of: "--only"), arguments.index(after: index) < arguments.endIndex {
    selected = arguments[arguments.index(after: index)].split(separator: ",").map(String.init)
    if let unknown = selected.first(where: { !all.contains($0) }) {
        FileHandle.standardError.write(Data("supervise-bench: unknown figure '\(unknown)': \(usage)\n".utf8))
        exit(2)
    }
}

var compared: String?
if let index = arguments.firstIndex(of: "--compare") {
    guard arguments.index(after: index) < arguments.endIndex,
          FileManager.default.isExecutableFile(atPath: arguments[arguments.index(after: index)]) else {
        FileHandle.standardError.write(Data("supervise-bench: --compare needs an executable supervise: \(usage)\n".utf8))
        exit(2)
    }
    compared = arguments[arguments.index(after: index)]
}

let paths = Paths()
guard FileManager.default.isExecutableFile(atPath: paths.supervise.path) else {
    FileHandle.standardError.write(Data("supervise-bench: no supervise at \(paths.supervise.path): run it with `swift run -c release supervise-bench`\n".utf8))
    exit(1)
}
func firstLine(_ path: String) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").first.map(String.init) ?? "unknown"
}
let cpuModel = ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").split(separator: "\n")
    .first { $0.hasPrefix("model name") }.map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
var results = Results(mode: full ? "full" : "quick",
                      machine: "\(ProcessInfo.processInfo.activeProcessorCount) cores (shared VM), \(cpuModel)",
                      kernel: firstLine("/proc/sys/kernel/osrelease"), supervise: paths.supervise.path)
let peers = ["tini": "tini", "dumb-init": "dumb-init", "runsv": "runit", "sv": "runit", "s6-supervise": "s6", "s6-svc": "s6", "s6-svstat": "s6",
             "supervisord": "supervisor"]
results.missingPeers = Array(Set(peers.filter { which($0.key) == nil }.map(\.value))).sorted()

do {
    try buildProbes(paths)
} catch {
    FileHandle.standardError.write(Data("supervise-bench: cannot build the C probes: \(error)\n".utf8))
    exit(1)
}
var bench = Bench(paths: paths, full: full, compared: compared, results: results)
for figure in selected {
    FileHandle.standardError.write(Data("supervise-bench: measuring \(figure)…\n".utf8))
    do {
        switch figure {
        case "latency": try bench.latency()
        case "relaunch": try bench.relaunch()
        case "pause": try bench.pause()
        case "timers": try bench.timers()
        case "startup": try bench.startup()
        case "idle": try bench.idle()
        case "scale": try bench.scale()
        case "binary": try bench.binary()
        case "ctl": try bench.ctl()
        case "pressure": try bench.pressure()
        default: try bench.throughput()
        }
    } catch {
        FileHandle.standardError.write(Data("supervise-bench: \(figure): \(error)\n".utf8))
        bench.results.skipped.append("\(figure) (partly): \(error)")
    }
}
results = bench.results
printTable(results)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
let latest = paths.results.appendingPathComponent("latest.json")
try encoder.encode(results).write(to: latest)
print("wrote \(latest.path)")

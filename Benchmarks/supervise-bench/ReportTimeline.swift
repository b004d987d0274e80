import Foundation

/// One entry of a supervise report's timeline.
struct TimelineEntry {
    let milliseconds: Double
    let kind: String
    let text: String
}

/// The timelines and violations of a supervise `--report` file, one per child.
struct SuperviseReport {
    var timelines: [[TimelineEntry]] = []
    var violationTimes: [Double] = []

    init(contentsOf url: URL) throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let children = (object as? [String: Any])?["children"] as? [[String: Any]] else {
            throw BenchError("\(url.path): not a supervise report (no children)")
        }
        for child in children {
            let entries = (child["timeline"] as? [[String: Any]] ?? []).compactMap { entry -> TimelineEntry? in
                guard let t = entry["t_ms"] as? Double, let kind = entry["kind"] as? String else { return nil }
                return TimelineEntry(milliseconds: t, kind: kind, text: entry["text"] as? String ?? "")
            }
            timelines.append(entries)
            for violation in child["violations"] as? [[String: Any]] ?? [] {
                if let at = violation["at_ms"] as? Double { violationTimes.append(at) }
            }
        }
    }

    /// For each entry matching `start`, the time to the next entry matching `end`, in ms.
    func intervals(from start: (TimelineEntry) -> Bool, to end: (TimelineEntry) -> Bool) -> [Double] {
        var result: [Double] = []
        for timeline in timelines {
            var began: Double?
            for entry in timeline {
                if let began, end(entry) {
                    result.append(entry.milliseconds - began)
                }
                if end(entry) { began = nil }
                if start(entry) { began = entry.milliseconds }
            }
        }
        return result
    }
}

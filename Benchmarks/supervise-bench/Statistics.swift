/// Percentiles of one figure's samples, by the nearest-rank method.
struct Summary: Codable {
    let count: Int
    let p50: Double
    let p99: Double
    let min: Double
    let max: Double

    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double {
            sorted[Swift.min(sorted.count - 1, Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        }
        count = sorted.count
        p50 = rank(0.50)
        p99 = rank(0.99)
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }
}

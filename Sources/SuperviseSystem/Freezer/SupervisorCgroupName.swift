/// The name of a supervisor's own cgroup: `supervise-PID-TOKEN`, TOKEN being 16 random hex digits.
///
/// The pid is for people reading the tree; the token keeps names apart across pid namespaces,
/// where pids repeat. Only names in this form are ever swept: the `supervise-PID` of older
/// builds is left to them (their sweep, which reads the suffix as a pid, skips this form in turn).
enum SupervisorCgroupName {
    static let prefix = "supervise-"
    static let tokenDigits = 16

    /// A fresh name for process `pid`, its token from the system's random source (getrandom).
    static func random(pid: Int32) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(pid: pid, token: generator.next())
    }

    static func make(pid: Int32, token: UInt64) -> String {
        let hex = String(token, radix: 16)
        return prefix + String(pid) + "-" + String(repeating: "0", count: tokenDigits - hex.count) + hex
    }

    /// Whether `name` is a supervisor cgroup's in this form (not a legacy `supervise-PID`).
    static func matches(_ name: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let fields = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 2 else { return false }
        let (pid, token) = (fields[0].utf8, fields[1].utf8)
        return !pid.isEmpty && pid.allSatisfy(isDigit) && token.count == tokenDigits && token.allSatisfy(isLowerHexDigit)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isLowerHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

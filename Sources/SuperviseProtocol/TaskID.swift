/// A task assertion's identifier, chosen by the child: 1–64 characters of `[A-Za-z0-9._-]`.
public struct TaskID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Returns `nil` unless `rawValue` is a valid identifier.
    public init?(_ rawValue: some StringProtocol) {
        guard TaskID.isValid(rawValue.utf8) else { return nil }
        self.rawValue = String(rawValue)
    }

    public var description: String { rawValue }

    /// The longest identifier the protocol allows.
    public static let maxLength = 64

    static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}

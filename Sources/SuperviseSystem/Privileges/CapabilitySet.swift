import CLibcap

/// Linux capabilities as a bit mask, bit N for capability N, named as libcap names them
/// (`cap_net_bind_service`).
public struct CapabilitySet: Equatable, Sendable {
    public var mask: UInt64

    public init(mask: UInt64 = 0) {
        self.mask = mask
    }

    /// Parses capability names with libcap (`cap_net_bind_service`; case, spaces around and a
    /// missing `cap_` prefix are forgiven); an unknown name is an error naming it.
    public static func parse(_ names: [String]) throws(PrivilegeLookupError) -> CapabilitySet {
        var set = CapabilitySet()
        for name in names {
            let trimmed = String(name.lowercased().drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            let spelled = trimmed.hasPrefix("cap_") ? trimmed : "cap_" + trimmed
            var value: cap_value_t = 0
            // libcap reads a name's prefix and ignores what follows ("cap_kill,x" is cap_kill): one word only.
            let isWord = !trimmed.isEmpty && trimmed.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (97...122).contains($0) }
            guard isWord, cap_from_name(spelled, &value) == 0, value >= 0, value <= lastKnown else {
                throw PrivilegeLookupError("unknown capability '\(name)': give names like cap_net_bind_service "
                    + "(see capabilities(7))")
            }
            set.mask |= 1 << UInt64(value)
        }
        return set
    }

    /// The highest capability number the running kernel knows (libcap asks the kernel).
    public static var lastKnown: Int32 { min(cap_max_bits() - 1, 63) }

    /// The names of the capabilities in the set, lowest number first.
    public var names: [String] {
        (0...Self.lastKnown).filter { mask & (1 << UInt64($0)) != 0 }.map(Self.name)
    }

    /// libcap's name of capability `number`, or its number when libcap has none.
    private static func name(_ number: Int32) -> String {
        guard let text = cap_to_name(number) else { return String(number) }
        defer { cap_free(text) }
        return String(cString: text)
    }
}

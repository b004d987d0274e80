/// The default routes in the kernel's route tables (`/proc/net/route`, `/proc/net/ipv6_route`),
/// for a scheduled task's `network` condition: it holds when a default route goes through a
/// link that is up.
public enum DefaultRoutes {
    /// `RTF_UP`: the route is usable.
    private static let up: UInt32 = 0x1
    /// `RTF_REJECT`: an unreachable route (IPv6's null entry on `lo` is one).
    private static let reject: UInt32 = 0x200

    /// The links of the usable IPv4 default routes: destination and mask `00000000`, `RTF_UP`
    /// and not `RTF_REJECT`. The header line and malformed lines are skipped.
    public static func ipv4Links(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000",
                  let flags = UInt32(fields[3], radix: 16), isUsable(flags)
            else { return nil }
            return String(fields[0])
        }
    }

    /// The links of the usable IPv6 default routes: destination `::`, prefix length 0,
    /// `RTF_UP` and not `RTF_REJECT`.
    public static func ipv6Links(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 10, fields[0].count == 32, fields[0].allSatisfy({ $0 == "0" }),
                  fields[1] == "00", let flags = UInt32(fields[8], radix: 16), isUsable(flags)
            else { return nil }
            return String(fields[9])
        }
    }

    private static func isUsable(_ flags: UInt32) -> Bool {
        flags & up != 0 && flags & reject == 0
    }
}

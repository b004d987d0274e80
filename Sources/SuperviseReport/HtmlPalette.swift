/// The picture's colours, one per thing drawn; the legend lists them all. Tests look for
/// these exact colours in a rendered screenshot, so each is distinct.
enum HtmlPalette {
    /// The fill of a state span, by the state's name in docs/protocol.md; `nil` for `exited`
    /// (nothing is running: the lane is empty until a restart). `not-running` (reclaimed, to be
    /// launched again by an event) is pale: no process either, but the child is not done.
    static func state(_ name: String) -> String? {
        switch name {
        case "launching": "#9e9e9e"
        case "active": "#43a047"
        case "background": "#1e88e5"
        case "suspending": "#4dd0e1"
        case "suspended": "#5e35b1"
        case "terminating": "#fb8c00"
        case "not-running": "#cfd8dc"
        case "exited": nil
        default: "#f48fb1"  // a state this version does not know
        }
    }

    /// The states in the order a child goes through them, for the legend.
    static let states = ["launching", "active", "background", "suspending", "suspended", "terminating", "not-running"]

    static let window = "#00897b"
    static let limit = "#6d4c41"
    static let task = "#fdd835"
    static let expire = "#e65100"
    static let kill = "#212121"
    static let violation = "#d50000"
    static let message = "#616161"
    /// The dashed line and `run N` where a run after the first begins.
    static let runStart = "#424242"
    static let protocolError = "#ad1457"
    /// A `memory-warning` sent, and a reclaim for memory pressure.
    static let memoryWarning = "#c0ca33"
    static let pressureReclaim = "#304ffe"
    static let unrecorded = "#9e9e9e"
    static let grid = "#eeeeee"
    static let laneBackground = "#fafafa"
}

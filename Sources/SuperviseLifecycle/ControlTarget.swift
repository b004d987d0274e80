/// Which child a control command is for.
public enum ControlTarget: Equatable, Sendable {
    /// No name given: valid only when there is a single child.
    case unnamed
    /// The child with this name (not yet checked against the running children).
    case named(String)
    /// Every child the command applies to.
    case all
}

/// The children a command's ``ControlTarget`` reaches, or why it reaches none
/// (``RunCore/places(_:among:)``).
public enum TargetPlaces: Equatable, Sendable {
    /// The places of the children it reaches, in the run's order.
    case children([Int])
    /// It is refused for `reason`: no name among several children.
    case refused(reason: String)
    /// It is refused: no child is named `name` (how the log may quote a name is `CommandEcho`'s).
    case noChildNamed(String)
}

extension RunCore {
    /// The children a command for `target` reaches among the children `names` (docs/cli.md,
    /// "Commands"): every one for `all`; with no name the only child, and none among several;
    /// the one named so, if any.
    public static func places(_ target: ControlTarget, among names: [String]) -> TargetPlaces {
        switch target {
        case .all:
            return .children(Array(names.indices))
        case .unnamed:
            if names.count == 1 { return .children([0]) }
            return .refused(reason: "name a child or 'all' (children: \(names.joined(separator: ", ")))")
        case .named(let name):
            return names.firstIndex(of: name).map { .children([$0]) } ?? .noChildNamed(name)
        }
    }
}

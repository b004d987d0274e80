/// The freezer backends, and `auto` which picks the first that works here.
public enum FreezerChoice: String, Sendable, CaseIterable {
    case auto
    case cgroup2
    case cgroup1
    case sigstop
}

/// A backend that actually freezes children.
public enum FreezerKind: String, Sendable, CaseIterable {
    case cgroup2
    case cgroup1
    case sigstop
}

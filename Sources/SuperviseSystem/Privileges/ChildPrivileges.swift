/// What a child may do beyond running: who it runs as, its capabilities, whether an exec may
/// give it more (docs/security.md).
///
/// A child with neither an identity nor capabilities keeps the supervisor's uid, gids and
/// capabilities. Otherwise it is *confined*: it gets exactly `capabilities` (none by default)
/// in every capability set, the bounding set included, no-new-privileges unless
/// `allowsNewPrivileges`, and, with an identity, a session of its own.
public struct ChildPrivileges: Equatable, Sendable {
    /// The uid and gids to switch to; nil keeps the supervisor's.
    public var identity: ChildIdentity?
    /// The capabilities granted; nil keeps the supervisor's when there is no identity, and
    /// grants none with one.
    public var capabilities: CapabilitySet?
    public var allowsNewPrivileges: Bool

    public init(identity: ChildIdentity? = nil, capabilities: CapabilitySet? = nil, allowsNewPrivileges: Bool = false) {
        self.identity = identity
        self.capabilities = capabilities
        self.allowsNewPrivileges = allowsNewPrivileges
    }

    /// Whether the spawner changes anything at all.
    public var isConfined: Bool { identity != nil || capabilities != nil }

    /// What the child keeps when confined.
    public var grantedCapabilities: CapabilitySet { capabilities ?? CapabilitySet() }
}

/// Where the orphans of children's trees go: the supervisor is a child subreaper, so a process
/// whose parent exits is reparented to it, not to init.
public struct OrphanAdoption: Sendable {
    /// The supervisor's pid.
    public var adopter: Int32
    /// Whether the supervisor runs one child: then every orphan it receives is that child's.
    public var soleChild: Bool

    public init(adopter: Int32, soleChild: Bool) {
        self.adopter = adopter
        self.soleChild = soleChild
    }
}

/// Sorts the processes of one scan into children's trees, for the sigstop freezer.
enum ChildTrees {
    /// What was known of one child before the scan.
    struct Known {
        var name: String
        var main: ProcessIdentity?
        /// The members the previous scan found; they stay members when orphaned.
        var members: Set<ProcessIdentity>
    }

    /// Each child's members in `table`, in the order of `known`: its main process, the members
    /// it had, and their live descendants. With `adoption`, an orphan of the adopter that no child
    /// has claimed is the sole child's, or else the child its `SUPERVISE_NAME` (read by `nameOf`)
    /// names; one that names no child belongs to none.
    static func sort(_ known: [Known], in table: ProcessTable, adoption: OrphanAdoption?,
                     nameOf: (Int32) -> String?) -> [Set<ProcessIdentity>] {
        var trees = known.map { child in table.trees(from: child.members.union(child.main.map { [$0] } ?? [])) }
        guard let adoption else { return trees }
        let claimed = trees.reduce(into: Set<ProcessIdentity>()) { $0.formUnion($1) }
        for orphan in table.children(of: adoption.adopter) where !claimed.contains(orphan) {
            let owner = adoption.soleChild
                ? known.indices.first
                : nameOf(orphan.pid).flatMap { name in known.firstIndex { $0.name == name } }
            if let owner { trees[owner].formUnion(table.trees(from: [orphan])) }
        }
        return trees
    }
}

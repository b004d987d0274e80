import SuperviseProtocol

/// The open task assertions in the order they began, with lookup, insertion and removal in
/// constant time (amortized): a child may hold many thousands, and each request is decided
/// while timers wait.
///
/// Removal leaves a hole that iteration skips; the holes are compacted away once they
/// outnumber the tasks.
public struct OpenTasks: Sequence, Equatable, Sendable {
    private var slots: [TaskReference?] = []
    private var positions: [TaskID: Int] = [:]

    public init() {}

    public var count: Int { positions.count }
    public var isEmpty: Bool { positions.isEmpty }

    public func contains(_ id: TaskID) -> Bool {
        positions[id] != nil
    }

    /// Adds `task` after every open one; its id must not be open.
    mutating func append(_ task: TaskReference) {
        positions[task.id] = slots.count
        slots.append(task)
    }

    /// Removes the task with `id`; whether it was open.
    @discardableResult
    mutating func remove(_ id: TaskID) -> Bool {
        guard let position = positions.removeValue(forKey: id) else { return false }
        slots[position] = nil
        if slots.count > 2 * positions.count + 16 { compact() }
        return true
    }

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        for (position, task) in slots.enumerated() { positions[task!.id] = position }
    }

    public func makeIterator() -> some IteratorProtocol<TaskReference> {
        slots.lazy.compactMap { $0 }.makeIterator()
    }

    public static func == (lhs: OpenTasks, rhs: OpenTasks) -> Bool {
        lhs.elementsEqual(rhs)
    }
}

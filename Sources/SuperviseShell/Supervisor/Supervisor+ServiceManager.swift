import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// The socket of the service manager that started the supervisor (`$NOTIFY_SOCKET`, set by
    /// systemd for `Type=notify`), or `nil` when there is none or it can't be used (logged).
    func openServiceManagerSocket() -> ServiceManagerSocket? {
        let variable = "NOTIFY_SOCKET="
        guard let entry = CurrentProcess.environment.last(where: { $0.hasPrefix(variable) }),
              entry.count > variable.count else { return nil }
        do {
            return try ServiceManagerSocket(path: String(entry.dropFirst(variable.count)))
        } catch {
            logger.warning("\(error.message)")
            return nil
        }
    }

    /// Tells the service manager what changed since the last time (``ServiceNotifier`` decides).
    func notifyServiceManager() {
        guard let serviceManager else { return }
        let states = children.map { child in
            ServiceNotifier.Child(name: child.name, status: child.status, grace: child.spec.settings.grace,
                                  mayRunAgain: core.mayRunAgain(runChild(child), commandSources))
        }
        guard let message = serviceNotifier.message(for: states) else { return }
        if let failure = serviceManager.send(message) { logger.warning("\(failure)") }
    }
}

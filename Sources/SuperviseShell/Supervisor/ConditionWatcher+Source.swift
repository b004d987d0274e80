import SuperviseSystem

/// The machine's conditions, read and watched by System's ``ConditionWatcher``, are the run's
/// condition source.
extension ConditionWatcher: ConditionSource {}

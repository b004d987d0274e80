// What a spawned child does between its fork and its exec (spawn_child.c). Private to this target.

#ifndef SUPERVISE_SPAWN_CHILD_H
#define SUPERVISE_SPAWN_CHILD_H

#include "supervise_shims.h"

#include <sys/types.h>

/// Everything the forked child does; it never returns. `shares_descriptors`: the child shares
/// the supervisor's descriptor table, and the staged descriptors are at or below
/// `_supervise_highest_staged_slot()`.
__attribute__((noreturn))
void _supervise_run_child(const _supervise_spawn_attributes *attributes, pid_t parent, int report_fd,
                          int placed_in_cgroup, int shares_descriptors);

#endif

// The slots a child's descriptors are staged in (spawn_staging.c), used by one spawn at a time:
// the caller holds spawn.c's lock. Private to this target.

#ifndef SUPERVISE_SPAWN_STAGING_H
#define SUPERVISE_SPAWN_STAGING_H

/// The child's fds below this number are the ones it is given; every other one is closed on exec.
#define FIRST_UNINHERITED_FD 5

/// The descriptors a child is given, staged at low numbers: fds 0-4, `cgroup.procs`, the report pipe.
#define STAGED_FD_COUNT 7

/// Takes the slots and the child stack, once. Returns 0 or the errno.
int _supervise_reserve_staged_slots(void);
/// Whether the slots were taken.
int _supervise_staged_slots_ready(void);
/// Copies `fd` into slot `index`; returns the slot, or -1 with errno set (EBADF for a negative `fd`).
int _supervise_stage(int index, int fd);
/// Puts the placeholder back in every slot, releasing the child's descriptors.
void _supervise_release_staged_slots(void);
/// The highest slot: a child sharing the table copies its descriptors up to this one only.
int _supervise_highest_staged_slot(void);
/// The stack a child runs on until its exec, where it shares the supervisor's memory.
void *_supervise_child_stack(void);

#endif

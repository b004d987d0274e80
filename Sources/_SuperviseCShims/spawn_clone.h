// clone3 starting a child on a stack of its own (spawn_clone.c), and what the spawner passes it.
// Private to this target; include it after defining _GNU_SOURCE.

#ifndef SUPERVISE_SPAWN_CLONE_H
#define SUPERVISE_SPAWN_CLONE_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

/// CLONE_VM where `_supervise_clone3_running` can start the child on a stack of its own: the
/// child then shares the supervisor's memory until its exec, and no page table is copied.
#if defined(__x86_64__)
#define CLONE_SHARING_MEMORY CLONE_VM
#else
#define CLONE_SHARING_MEMORY 0
#endif

/// The stack a child runs on until its exec when it shares the supervisor's memory.
#define CHILD_STACK_SIZE (256 * 1024)

/// clone3's arguments (linux/sched.h, spelled out to stay clear of glibc's <sched.h>).
struct supervise_clone_args {
    uint64_t flags;
    uint64_t pidfd;
    uint64_t child_tid;
    uint64_t parent_tid;
    uint64_t exit_signal;
    uint64_t stack;
    uint64_t stack_size;
    uint64_t tls;
    uint64_t set_tid;
    uint64_t set_tid_size;
    uint64_t cgroup;
};
#define SUPERVISE_CLONE_INTO_CGROUP 0x200000000ULL

/// Starts `child_main(argument)` in a new process: clone3 with `args`, on `args->stack` when the
/// flags share memory. The child never returns from `child_main`. Returns the child's pid, or -1
/// with errno set.
pid_t _supervise_clone3_running(struct supervise_clone_args *args, void (*child_main)(void *),
                                void *argument);

#endif

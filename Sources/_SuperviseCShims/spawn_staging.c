// The slots a child's descriptors are staged in: fixed low numbers (5 and up, the lowest free
// when the first child was spawned), holding a placeholder between spawns. A child that shares
// the supervisor's descriptor table copies it only up to the highest slot, so a launch costs the
// same whatever the number of descriptors the supervisor holds. One spawn at a time uses them:
// the caller holds spawn.c's lock.

#define _GNU_SOURCE 1

#include "spawn_clone.h"
#include "spawn_staging.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

static int staged_slots[STAGED_FD_COUNT];
static int staging_ready = 0;
static int placeholder_fd = -1;
static int highest_staged_slot = -1;
static void *child_stack = NULL;

/// Closes what `_supervise_reserve_staged_slots` took before it failed.
static void unreserve_staged_slots(int taken) {
    for (int index = 0; index < taken; index++) {
        close(staged_slots[index]);
    }
    if (placeholder_fd >= 0) {
        close(placeholder_fd);
    }
    placeholder_fd = -1;
    highest_staged_slot = -1;
}

/// Takes the slots and the child stack, once. Returns 0 or the errno.
int _supervise_reserve_staged_slots(void) {
    if (staging_ready) {
        return 0;
    }
    int event = eventfd(0, EFD_CLOEXEC);
    if (event < 0) {
        return errno;
    }
    // 5 and up: a slot must not take the place of a closed stdin, stdout or stderr.
    placeholder_fd = event >= FIRST_UNINHERITED_FD ? event : fcntl(event, F_DUPFD_CLOEXEC, FIRST_UNINHERITED_FD);
    int error = placeholder_fd < 0 ? errno : 0;
    if (event != placeholder_fd) {
        close(event);
    }
    int taken = 0;
    for (; taken < STAGED_FD_COUNT && error == 0; taken++) {
        staged_slots[taken] = fcntl(placeholder_fd, F_DUPFD_CLOEXEC, FIRST_UNINHERITED_FD);
        if (staged_slots[taken] < 0) {
            error = errno;
            break;
        }
        if (staged_slots[taken] > highest_staged_slot) {
            highest_staged_slot = staged_slots[taken];
        }
    }
    if (error == 0 && CLONE_SHARING_MEMORY != 0) {
        void *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (stack == MAP_FAILED) {
            error = errno;
        } else {
            child_stack = stack;
        }
    }
    if (error != 0) {
        unreserve_staged_slots(taken);
        return error;
    }
    staging_ready = 1;
    return 0;
}

/// Copies `fd` into slot `index`; returns the slot, or -1 with errno set (EBADF for a negative `fd`).
int _supervise_stage(int index, int fd) {
    if (fd < 0) {
        errno = EBADF;
        return -1;
    }
    return dup3(fd, staged_slots[index], O_CLOEXEC);
}

/// Puts the placeholder back in every slot, releasing the child's descriptors.
void _supervise_release_staged_slots(void) {
    for (int index = 0; index < STAGED_FD_COUNT; index++) {
        dup3(placeholder_fd, staged_slots[index], O_CLOEXEC);
    }
}

int _supervise_staged_slots_ready(void) {
    return staging_ready;
}

int _supervise_highest_staged_slot(void) {
    return highest_staged_slot;
}

void *_supervise_child_stack(void) {
    return child_stack;
}

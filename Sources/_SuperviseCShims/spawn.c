// fork/exec for one child, the parent's side: block signals, stage the request's descriptors,
// clone3 (or fork) the child, and read what it reports before its exec. Between fork and exec the
// child (spawn_child.c) runs only async-signal-safe calls and allocates nothing.
//
// The child is created sharing the supervisor's descriptor table (CLONE_FILES) and takes a copy
// of only its lowest descriptors (close_range CLOSE_RANGE_UNSHARE), where the request's
// descriptors were staged: copying the whole table at the fork and closing every inherited
// descriptor at exec cost O(open descriptors) a child, which grows with the running children.
// With CLONE_VM (x86-64) no page table is copied either (docs/performance.md, "Launching many
// children (before → after)").

#define _GNU_SOURCE 1

#include "spawn_child.h"
#include "spawn_clone.h"
#include "spawn_staging.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/// Makes one spawn at a time use the staged slots (spawn_staging.c).
static pthread_mutex_t staging_lock = PTHREAD_MUTEX_INITIALIZER;

/// Blocks every signal that can be blocked and is not a synchronous fault, saving the old mask.
static int block_signals(sigset_t *old_mask) {
    sigset_t mask;
    sigfillset(&mask);
    sigdelset(&mask, SIGABRT);
    sigdelset(&mask, SIGBUS);
    sigdelset(&mask, SIGFPE);
    sigdelset(&mask, SIGILL);
    sigdelset(&mask, SIGSEGV);
    sigdelset(&mask, SIGSYS);
    sigdelset(&mask, SIGTRAP);
    return pthread_sigmask(SIG_BLOCK, &mask, old_mask);
}

/// Reads the child's report until EOF. Returns the bytes read, or -1 with errno set.
static ssize_t read_report(int fd, int message[2]) {
    size_t received = 0;
    while (received < 2 * sizeof(int)) {
        ssize_t count = read(fd, (char *)message + received, 2 * sizeof(int) - received);
        if (count == 0) {
            break;
        }
        if (count < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        received += (size_t)count;
    }
    return (ssize_t)received;
}

/// What a child created by clone3 starts from.
struct child_start {
    const _supervise_spawn_attributes *attributes;
    pid_t parent;
    int report_fd;
    int placed_in_cgroup;
};

/// The child's start after clone3: it shares the supervisor's descriptor table.
__attribute__((noreturn))
static void start_shared_child(void *argument) {
    const struct child_start *start = argument;
    _supervise_run_child(start->attributes, start->parent, start->report_fd, start->placed_in_cgroup, 1);
}

/// Stages the request's descriptors in the slots and forks the child, which then execs.
/// With `staging_lock` held. Returns the child's pid, or -1 with errno and `*failed_step` set.
static pid_t fork_staged_child(const _supervise_spawn_attributes *attributes, int report_fd,
                               int *failed_step) {
    _supervise_spawn_attributes staged = *attributes;
    staged.stdin_fd = _supervise_stage(0, attributes->stdin_fd);
    staged.stdout_fd = _supervise_stage(1, attributes->stdout_fd);
    staged.stderr_fd = _supervise_stage(2, attributes->stderr_fd);
    staged.events_fd = _supervise_stage(3, attributes->events_fd);
    staged.requests_fd = _supervise_stage(4, attributes->requests_fd);
    staged.cgroup_procs_fd = _supervise_stage(5, attributes->cgroup_procs_fd);
    int staged_report_fd = _supervise_stage(6, report_fd);
    if (staged.stdin_fd < 0 || staged.stdout_fd < 0 || staged.stderr_fd < 0 || staged.events_fd < 0
        || staged.requests_fd < 0 || staged_report_fd < 0
        || (attributes->cgroup_procs_fd >= 0 && staged.cgroup_procs_fd < 0)) {
        *failed_step = _SUPERVISE_STEP_DESCRIPTORS;
        return -1;
    }

    struct child_start start = {
        .attributes = &staged,
        .parent = getpid(),
        .report_fd = staged_report_fd,
        .placed_in_cgroup = attributes->cgroup_directory_fd >= 0,
    };
    struct supervise_clone_args args;
    memset(&args, 0, sizeof(args));
    args.flags = CLONE_FILES | CLONE_VFORK | CLONE_SHARING_MEMORY;
    if (CLONE_SHARING_MEMORY != 0) {
        args.stack = (uint64_t)(uintptr_t)_supervise_child_stack();
        args.stack_size = CHILD_STACK_SIZE;
    }
    if (start.placed_in_cgroup) {
        args.flags |= SUPERVISE_CLONE_INTO_CGROUP;
        args.cgroup = (uint64_t)attributes->cgroup_directory_fd;
    }
    args.exit_signal = SIGCHLD;
    pid_t child = _supervise_clone3_running(&args, start_shared_child, &start);
    if (child < 0) {
        // A kernel without clone3 or CLONE_INTO_CGROUP: a plain fork, which copies the table,
        // and the write to cgroup.procs, opened here from the directory the caller gave.
        int opened_procs_fd = -1;
        if (staged.cgroup_procs_fd < 0 && attributes->cgroup_directory_fd >= 0) {
            opened_procs_fd = openat(attributes->cgroup_directory_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
            if (opened_procs_fd < 0) {
                *failed_step = _SUPERVISE_STEP_CGROUP;
                return -1;
            }
            staged.cgroup_procs_fd = opened_procs_fd;
        }
        child = fork();
        if (child == 0) {
            _supervise_run_child(&staged, start.parent, staged_report_fd, 0, 0);
        }
        if (opened_procs_fd >= 0) {
            int fork_error = errno;
            close(opened_procs_fd);
            errno = fork_error;
        }
    }
    if (child < 0) {
        *failed_step = _SUPERVISE_STEP_FORK;
    }
    return child;
}

int _supervise_spawn(const _supervise_spawn_attributes *attributes, pid_t *pid, int *failed_step) {
    int report_pipe[2];
    if (pipe2(report_pipe, O_CLOEXEC) != 0) {
        *failed_step = _SUPERVISE_STEP_PIPE;
        return errno;
    }

    sigset_t old_mask;
    int error = block_signals(&old_mask);
    if (error != 0) {
        close(report_pipe[0]);
        close(report_pipe[1]);
        *failed_step = _SUPERVISE_STEP_FORK;
        return error;
    }

    pthread_mutex_lock(&staging_lock);
    pid_t child = -1;
    error = _supervise_reserve_staged_slots();
    if (error == 0) {
        child = fork_staged_child(attributes, report_pipe[1], failed_step);
        error = errno;
    } else {
        *failed_step = _SUPERVISE_STEP_DESCRIPTORS;
    }
    if (child > 0 && !attributes->new_session) {
        // Also done by the child: whichever runs first, the group exists before we return.
        // (Not for a new session: setsid fails in a process that already leads a group.)
        // EACCES (the child already exec'd) and ESRCH are fine: the child did it itself.
        setpgid(child, child);
    }
    if (_supervise_staged_slots_ready()) {
        _supervise_release_staged_slots();
    }
    pthread_mutex_unlock(&staging_lock);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    close(report_pipe[1]);

    if (child < 0) {
        close(report_pipe[0]);
        return error;
    }

    int message[2] = { 0, 0 };
    ssize_t received = read_report(report_pipe[0], message);
    int read_error = errno;
    close(report_pipe[0]);
    if (received == 0) {
        *pid = child;
        return 0;
    }

    if (received < 0) {
        // The child's fate is unknown: make sure it does not run unsupervised.
        kill(child, SIGKILL);
        *failed_step = _SUPERVISE_STEP_PIPE;
        error = read_error;
    } else if (received < (ssize_t)sizeof(message)) {
        *failed_step = _SUPERVISE_STEP_EXEC;
        error = EIO;
    } else {
        *failed_step = message[0];
        error = message[1];
    }
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
    }
    return error;
}

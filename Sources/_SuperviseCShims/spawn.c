// fork/exec for one child. Between fork and exec the child runs only async-signal-safe calls
// and allocates nothing: the supervisor is multi-threaded, its heap locks may be held by another
// thread, and on x86-64 the child even shares the supervisor's memory until its exec.
//
// The child is created sharing the supervisor's descriptor table (CLONE_FILES) and takes a copy
// of only its lowest descriptors (close_range CLOSE_RANGE_UNSHARE), where the request's
// descriptors were staged: copying the whole table at the fork and closing every inherited
// descriptor at exec cost O(open descriptors) a child, which grows with the running children.
// With CLONE_VM (x86-64) no page table is copied either (docs/performance.md, "Launching many
// children (before → after)").

#define _GNU_SOURCE 1

#include "supervise_shims.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/// The child's fds below this number are the ones it is given; every other one is closed on exec.
#define FIRST_UNINHERITED_FD 5

/// Largest fd the fallback loop visits when the open-files limit is unlimited.
#define FALLBACK_FD_BOUND (1 << 20)

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

/// CLONE_VM where `clone3_running` can start the child on a stack of its own: the child then
/// shares the supervisor's memory until its exec, and no page table is copied.
#if defined(__x86_64__)
#define CLONE_SHARING_MEMORY CLONE_VM
#else
#define CLONE_SHARING_MEMORY 0
#endif

/// The stack a child runs on until its exec when it shares the supervisor's memory.
#define CHILD_STACK_SIZE (256 * 1024)

/// Starts `child_main(argument)` in a new process: clone3 with `args`, on `stack` when the
/// flags share memory. The child never returns from `child_main`.
static pid_t clone3_running(struct supervise_clone_args *args, void (*child_main)(void *),
                            void *argument) {
#if defined(__x86_64__) && defined(SYS_clone3)
    register long result __asm__("rax") = SYS_clone3;
    register struct supervise_clone_args *arguments_register __asm__("rdi") = args;
    register size_t size_register __asm__("rsi") = sizeof(*args);
    register void (*main_register)(void *) __asm__("r12") = child_main;
    register void *argument_register __asm__("r13") = argument;
    __asm__ volatile(
        "syscall\n\t"
        "test %%rax, %%rax\n\t"
        "jnz 1f\n\t"
        // The child, on its own stack: call child_main(argument), which does not return.
        "xor %%ebp, %%ebp\n\t"
        "mov %%r13, %%rdi\n\t"
        "and $-16, %%rsp\n\t"
        "call *%%r12\n\t"
        "hlt\n\t"
        "1:\n\t"
        : "+r"(result)
        : "r"(arguments_register), "r"(size_register), "r"(main_register), "r"(argument_register)
        : "rcx", "r11", "memory");
    if (result < 0) {
        errno = (int)-result;
        return -1;
    }
    return (pid_t)result;
#elif defined(SYS_clone3)
    pid_t child = (pid_t)syscall(SYS_clone3, args, sizeof(*args));
    if (child == 0) {
        child_main(argument);
    }
    return child;
#else
    (void)args;
    (void)child_main;
    (void)argument;
    errno = ENOSYS;
    return -1;
#endif
}

/// The descriptors a child is given, staged at low numbers: fds 0-4, `cgroup.procs`, the report pipe.
#define STAGED_FD_COUNT 7

/// Slots at fixed low numbers (5 and up, the lowest free when the first child was spawned),
/// holding `placeholder_fd` between spawns; `staging_lock` makes one spawn at a time use them.
static pthread_mutex_t staging_lock = PTHREAD_MUTEX_INITIALIZER;
static int staged_slots[STAGED_FD_COUNT];
static int staging_ready = 0;
static int placeholder_fd = -1;
/// The highest slot: a child copies the table's descriptors up to this one only.
static int highest_staged_slot = -1;
/// The stack a child runs on until its exec, where it shares the supervisor's memory.
static void *child_stack = NULL;

/// Closes what `reserve_staged_slots` took before it failed.
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

/// Takes the slots and the child stack, once. With `staging_lock` held. Returns 0 or the errno.
static int reserve_staged_slots(void) {
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
static int stage(int index, int fd) {
    if (fd < 0) {
        errno = EBADF;
        return -1;
    }
    return dup3(fd, staged_slots[index], O_CLOEXEC);
}

/// Puts the placeholder back in every slot, releasing the child's descriptors.
static void release_staged_slots(void) {
    for (int index = 0; index < STAGED_FD_COUNT; index++) {
        dup3(placeholder_fd, staged_slots[index], O_CLOEXEC);
    }
}

/// Writes `value` (non-negative) in decimal, NUL-terminated.
static void write_decimal(char *out, pid_t value) {
    char reversed[16];
    int count = 0;
    do {
        reversed[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    for (int index = 0; index < count; index++) {
        out[index] = reversed[count - 1 - index];
    }
    out[count] = '\0';
}

/// Tells the parent which step failed with which errno, and ends the child.
__attribute__((noreturn))
static void report_and_exit(int report_fd, int step, int error) {
    int message[2] = { step, error };
    while (write(report_fd, message, sizeof(message)) < 0 && errno == EINTR) {
    }
    _exit(127);
}

/// Marks every fd from FIRST_UNINHERITED_FD up close-on-exec, the slow way.
static int mark_uninherited_fds_cloexec(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
        return -1;
    }
    rlim_t bound = limit.rlim_cur == RLIM_INFINITY ? FALLBACK_FD_BOUND : limit.rlim_cur;
    for (rlim_t fd = FIRST_UNINHERITED_FD; fd < bound; fd++) {
        int flags = fcntl((int)fd, F_GETFD);
        if (flags >= 0 && (flags & FD_CLOEXEC) == 0) {
            fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
        }
    }
    return 0;
}

/// Puts the request's descriptors at 0-4 and makes every other fd close on exec.
/// Returns the errno of a failure, or 0.
static int place_descriptors(const _supervise_spawn_attributes *attributes) {
    int sources[FIRST_UNINHERITED_FD] = {
        attributes->stdin_fd, attributes->stdout_fd, attributes->stderr_fd,
        attributes->events_fd, attributes->requests_fd,
    };
    // A source already numbered 0-4 could be overwritten by an earlier dup2: move it out first.
    for (int target = 0; target < FIRST_UNINHERITED_FD; target++) {
        if (sources[target] >= 0 && sources[target] < FIRST_UNINHERITED_FD) {
            sources[target] = fcntl(sources[target], F_DUPFD_CLOEXEC, FIRST_UNINHERITED_FD);
            if (sources[target] < 0) {
                return errno;
            }
        }
    }
    // dup2 clears close-on-exec on the new descriptor, so 0-4 survive the exec.
    for (int target = 0; target < FIRST_UNINHERITED_FD; target++) {
        if (dup2(sources[target], target) < 0) {
            return errno;
        }
    }
    if (close_range(FIRST_UNINHERITED_FD, ~0U, CLOSE_RANGE_CLOEXEC) != 0
        && mark_uninherited_fds_cloexec() != 0) {
        return errno;
    }
    return 0;
}

/// Resets every signal the process may catch or ignore to its default disposition, but those
/// of `ignored` (bit N-1 for signal N), which are ignored.
///
/// Through the system call: the C library's sigaction refuses the real-time signals it keeps for
/// itself (32 and 33), and an ignored one would still be inherited across exec. The ignored
/// ones through the C library (sigaction is async-signal-safe), whose struct puts the handler
/// where each architecture's kernel wants it.
static int reset_signal_dispositions(unsigned long long ignored) {
    // SIG_DFL (0), no flags, an empty mask: all zeros in any architecture's kernel sigaction.
    unsigned long default_action[8] = { 0 };
    struct sigaction ignore_action;
    memset(&ignore_action, 0, sizeof ignore_action);
    ignore_action.sa_handler = SIG_IGN;
    for (int signo = 1; signo < NSIG; signo++) {
        if (signo == SIGKILL || signo == SIGSTOP) {
            continue;
        }
        int failed = signo <= 64 && (ignored >> (signo - 1)) & 1
            ? sigaction(signo, &ignore_action, NULL)
            : syscall(SYS_rt_sigaction, signo, default_action, NULL, (NSIG - 1) / 8);
        if (failed != 0) {
            return errno;
        }
    }
    return 0;
}

/// Whether execve's errno means "not in this directory, try the next one" (as execvp).
static int is_lookup_miss(int error) {
    switch (error) {
    case ENOENT:
    case ENOTDIR:
    case ESTALE:
    case ENODEV:
    case ETIMEDOUT:
    case ENAMETOOLONG:
        return 1;
    default:
        return 0;
    }
}

/// execve, with an execvp-style lookup of a file without a `/` on `search_path`.
__attribute__((noreturn))
static void exec_child(const _supervise_spawn_attributes *attributes, int report_fd) {
    const char *file = attributes->file;
    if (strchr(file, '/') != NULL) {
        execve(file, attributes->argv, attributes->envp);
        report_and_exit(report_fd, _SUPERVISE_STEP_EXEC, errno);
    }
    size_t file_length = strlen(file);
    if (file_length == 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_EXEC, ENOENT);
    }
    char candidate[PATH_MAX];
    int denied = 0;
    const char *directory = attributes->search_path;
    for (;;) {
        const char *end = strchrnul(directory, ':');
        size_t directory_length = (size_t)(end - directory);
        if (directory_length + 1 + file_length < sizeof(candidate)) {
            size_t offset = 0;
            if (directory_length > 0) {
                memcpy(candidate, directory, directory_length);
                candidate[directory_length] = '/';
                offset = directory_length + 1;
            }
            memcpy(candidate + offset, file, file_length + 1);
            execve(candidate, attributes->argv, attributes->envp);
            if (errno == EACCES) {
                denied = 1;
            } else if (!is_lookup_miss(errno)) {
                report_and_exit(report_fd, _SUPERVISE_STEP_EXEC, errno);
            }
        }
        if (*end == '\0') {
            break;
        }
        directory = end + 1;
    }
    report_and_exit(report_fd, _SUPERVISE_STEP_EXEC, denied ? EACCES : ENOENT);
}

/// Everything the forked child does; it never returns. `shares_descriptors`: the child shares
/// the supervisor's descriptor table, and the staged descriptors are below `highest_staged_slot`.
__attribute__((noreturn))
static void run_child(const _supervise_spawn_attributes *attributes, pid_t parent, int report_fd,
                      int placed_in_cgroup, int shares_descriptors) {
    if (shares_descriptors
        && close_range((unsigned)highest_staged_slot + 1, ~0U, CLOSE_RANGE_UNSHARE) != 0
        && unshare(CLONE_FILES) != 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_DESCRIPTORS, errno);
    }

    // The report pipe must not be overwritten when the descriptors are placed at 0-4.
    if (report_fd < FIRST_UNINHERITED_FD) {
        int moved = fcntl(report_fd, F_DUPFD_CLOEXEC, FIRST_UNINHERITED_FD);
        if (moved < 0) {
            report_and_exit(report_fd, _SUPERVISE_STEP_DESCRIPTORS, errno);
        }
        report_fd = moved;
    }

    if (attributes->new_session) {
        if (setsid() < 0) {
            report_and_exit(report_fd, _SUPERVISE_STEP_SESSION, errno);
        }
    } else if (setpgid(0, 0) != 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_PROCESS_GROUP, errno);
    }

    if (!placed_in_cgroup && attributes->cgroup_procs_fd >= 0) {
        ssize_t written;
        do {
            written = write(attributes->cgroup_procs_fd, "0", 1);
        } while (written < 0 && errno == EINTR);
        if (written != 1) {
            report_and_exit(report_fd, _SUPERVISE_STEP_CGROUP, written < 0 ? errno : EIO);
        }
    }

    int error = place_descriptors(attributes);
    if (error != 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_DESCRIPTORS, error);
    }

    if (attributes->take_terminal && isatty(STDIN_FILENO)) {
        // As tini: a background group may take the terminal only while ignoring SIGTTOU.
        // ENOTTY/ENXIO: the terminal is not this session's controlling terminal; run without it.
        signal(SIGTTOU, SIG_IGN);
        if (tcsetpgrp(STDIN_FILENO, getpid()) != 0 && errno != ENOTTY && errno != ENXIO) {
            report_and_exit(report_fd, _SUPERVISE_STEP_TERMINAL, errno);
        }
    }

    if (attributes->set_open_files_limit) {
        struct rlimit limit = {
            .rlim_cur = (rlim_t)attributes->open_files_soft,
            .rlim_max = (rlim_t)attributes->open_files_hard,
        };
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
            report_and_exit(report_fd, _SUPERVISE_STEP_OPEN_FILES_LIMIT, errno);
        }
    }

    error = reset_signal_dispositions(attributes->ignored_signals);
    if (error != 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_SIGNALS, error);
    }

    if (attributes->credentials != NULL) {
        int step = 0;
        error = _supervise_apply_credentials(attributes->credentials, &step);
        if (error != 0) {
            report_and_exit(report_fd, step, error);
        }
    }

    // After the credentials: a change of uid or gid clears the parent-death signal.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_PARENT_DEATH_SIGNAL, errno);
    }
    if (getppid() != parent) {
        // The supervisor died before the parent-death signal was armed: nobody is left to tell.
        _exit(127);
    }

    if (attributes->pid_value != NULL) {
        write_decimal(attributes->pid_value, getpid());
    }

    if (attributes->working_directory != NULL && chdir(attributes->working_directory) != 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_WORKING_DIRECTORY, errno);
    }

    // Last: a signal sent to the new group meanwhile was held, and now acts with its default.
    sigset_t empty;
    sigemptyset(&empty);
    if (sigprocmask(SIG_SETMASK, &empty, NULL) != 0) {
        report_and_exit(report_fd, _SUPERVISE_STEP_SIGNALS, errno);
    }

    exec_child(attributes, report_fd);
}

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
    run_child(start->attributes, start->parent, start->report_fd, start->placed_in_cgroup, 1);
}

/// Stages the request's descriptors in the slots and forks the child, which then execs.
/// With `staging_lock` held. Returns the child's pid, or -1 with errno and `*failed_step` set.
static pid_t fork_staged_child(const _supervise_spawn_attributes *attributes, int report_fd,
                               int *failed_step) {
    _supervise_spawn_attributes staged = *attributes;
    staged.stdin_fd = stage(0, attributes->stdin_fd);
    staged.stdout_fd = stage(1, attributes->stdout_fd);
    staged.stderr_fd = stage(2, attributes->stderr_fd);
    staged.events_fd = stage(3, attributes->events_fd);
    staged.requests_fd = stage(4, attributes->requests_fd);
    staged.cgroup_procs_fd = stage(5, attributes->cgroup_procs_fd);
    int staged_report_fd = stage(6, report_fd);
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
        args.stack = (uint64_t)(uintptr_t)child_stack;
        args.stack_size = CHILD_STACK_SIZE;
    }
    if (start.placed_in_cgroup) {
        args.flags |= SUPERVISE_CLONE_INTO_CGROUP;
        args.cgroup = (uint64_t)attributes->cgroup_directory_fd;
    }
    args.exit_signal = SIGCHLD;
    pid_t child = clone3_running(&args, start_shared_child, &start);
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
            run_child(&staged, start.parent, staged_report_fd, 0, 0);
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
    error = reserve_staged_slots();
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
    if (staging_ready) {
        release_staged_slots();
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

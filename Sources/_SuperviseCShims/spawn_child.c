// What a spawned child does between its fork and its exec: take its own copy of the descriptors
// it is given and place them at 0-4, its session or group, cgroup, terminal, limits, signal
// dispositions and credentials, then exec with an execvp-style lookup. It runs only
// async-signal-safe calls and allocates nothing: the supervisor is multi-threaded, its heap
// locks may be held by another thread, and on x86-64 the child even shares the supervisor's
// memory until its exec. Every failure is reported to the parent as a step and an errno.

#define _GNU_SOURCE 1

#include "spawn_child.h"
#include "spawn_staging.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Largest fd the fallback loop visits when the open-files limit is unlimited.
#define FALLBACK_FD_BOUND (1 << 20)

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

__attribute__((noreturn))
void _supervise_run_child(const _supervise_spawn_attributes *attributes, pid_t parent, int report_fd,
                          int placed_in_cgroup, int shares_descriptors) {
    if (shares_descriptors
        && close_range((unsigned)_supervise_highest_staged_slot() + 1, ~0U, CLOSE_RANGE_UNSHARE) != 0
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


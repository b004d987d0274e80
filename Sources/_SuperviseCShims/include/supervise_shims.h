#ifndef SUPERVISE_SHIMS_H
#define SUPERVISE_SHIMS_H

#include <stdint.h>
#include <sys/types.h>

/// Where a spawn failed: the step reported with the errno.
/// Steps up to `_SUPERVISE_STEP_FORK` fail in the supervisor; the rest in the forked child.
#define _SUPERVISE_STEP_PIPE 1
#define _SUPERVISE_STEP_FORK 2
#define _SUPERVISE_STEP_PROCESS_GROUP 3
#define _SUPERVISE_STEP_PARENT_DEATH_SIGNAL 4
#define _SUPERVISE_STEP_CGROUP 5
#define _SUPERVISE_STEP_DESCRIPTORS 6
#define _SUPERVISE_STEP_TERMINAL 7
#define _SUPERVISE_STEP_OPEN_FILES_LIMIT 8
#define _SUPERVISE_STEP_SIGNALS 9
#define _SUPERVISE_STEP_WORKING_DIRECTORY 10
#define _SUPERVISE_STEP_EXEC 11
#define _SUPERVISE_STEP_SESSION 12
#define _SUPERVISE_STEP_GROUPS 13
#define _SUPERVISE_STEP_GID 14
#define _SUPERVISE_STEP_BOUNDING_SET 15
#define _SUPERVISE_STEP_KEEP_CAPABILITIES 16
#define _SUPERVISE_STEP_UID 17
#define _SUPERVISE_STEP_CAPABILITIES 18
#define _SUPERVISE_STEP_AMBIENT 19
#define _SUPERVISE_STEP_NO_NEW_PRIVILEGES 20

/// The privileges a confined child runs with, as plain values computed by the supervisor
/// before the fork (docs/security.md).
typedef struct _supervise_credentials {
    /// Non-zero: switch to `uid`, `gid` and exactly the `group_count` supplementary `groups`.
    int change_identity;
    uid_t uid;
    gid_t gid;
    const gid_t * _Nullable groups;
    int group_count;
    /// Bit N set: the child keeps capability N, in every set (bounding, permitted, effective,
    /// inheritable, ambient); every other capability up to `last_capability` is dropped.
    uint64_t capabilities;
    /// The highest capability number the running kernel knows.
    int last_capability;
    /// Non-zero: set no-new-privileges, so no exec can give the child more than this.
    int no_new_privileges;
} _supervise_credentials;

/// Applies `credentials` to the calling process, async-signal-safe (raw system calls only; no
/// allocation, no glibc set*id wrapper that signals other threads). For a spawner's child
/// between fork and exec. Returns 0, or the errno with `*failed_step` set to the step.
int _supervise_apply_credentials(const _supervise_credentials * _Nonnull credentials,
                                 int * _Nonnull failed_step);

/// What the child is made of. Everything is allocated by the caller before the fork.
typedef struct _supervise_spawn_attributes {
    /// `argv[0]`: run as is when it contains a `/`, otherwise looked up on `search_path`.
    const char * _Nonnull file;
    char * _Nullable const * _Nonnull argv;
    char * _Nullable const * _Nonnull envp;
    /// The `PATH` used for the lookup of `file` (colon-separated; an empty entry is the cwd).
    const char * _Nonnull search_path;
    /// NULL, or where, inside one of the `envp` strings, the child writes its own pid in decimal
    /// (room for at least 12 characters and the NUL): for `SUPERVISE_PID`, which only the child knows.
    char * _Nullable pid_value;
    /// The child's working directory, or NULL to inherit the supervisor's.
    const char * _Nullable working_directory;
    /// Placed at fds 0, 1, 2, 3 and 4 of the child.
    int stdin_fd;
    int stdout_fd;
    int stderr_fd;
    int events_fd;
    int requests_fd;
    /// An open cgroup v2 directory the child is created in with clone3(CLONE_INTO_CGROUP), or -1.
    /// That skips the migration a `cgroup.procs` write costs (an RCU grace period, ~15 ms here).
    int cgroup_directory_fd;
    /// An open `cgroup.procs` the child writes "0" into when it was not created in its cgroup
    /// (cgroup v1, or a kernel without clone3), or -1.
    int cgroup_procs_fd;
    /// Non-zero: make the child's process group the foreground group of the terminal on fd 0.
    int take_terminal;
    /// Non-zero: set RLIMIT_NOFILE to `open_files_soft`/`open_files_hard` in the child.
    int set_open_files_limit;
    unsigned long long open_files_soft;
    unsigned long long open_files_hard;
    /// NULL: the child keeps the supervisor's uid, gids and capabilities. Otherwise applied
    /// after the cgroup placement (which needs the supervisor's rights) and before exec.
    const _supervise_credentials * _Nullable credentials;
    /// Non-zero: the child leads a new session (setsid) rather than only a new process group,
    /// so that no other session's process may send it SIGCONT.
    int new_session;
    /// Bit N-1 set: signal N starts ignored in the child, as the supervisor inherited it (nohup's
    /// SIGHUP); every other signal starts at its default disposition. Signals 1 to 64.
    unsigned long long ignored_signals;
} _supervise_spawn_attributes;

/// Forks and execs a child in its own process group (or session), with the parent-death signal SIGKILL,
/// in a cgroup if asked, with exactly fds 0-4 open, default signal dispositions (but for
/// `ignored_signals`) and an empty signal mask.
///
/// The child copies only the supervisor's lowest descriptors, however many it holds: the request's
/// are staged in 7 slots the first spawn reserves (at 5 and up; they then hold an eventfd,
/// 8 descriptors the supervisor keeps open). On x86-64 it shares the supervisor's memory until
/// its exec (CLONE_VM, on a stack mapped once). The calling thread waits for the exec (CLONE_VFORK);
/// spawns from several threads take turns.
///
/// Returns 0 and sets `*pid` once the exec succeeded. Otherwise returns the errno and sets
/// `*failed_step` to a `_SUPERVISE_STEP_*`; a child that was forked has been reaped.
int _supervise_spawn(const _supervise_spawn_attributes * _Nonnull attributes,
                     pid_t * _Nonnull pid,
                     int * _Nonnull failed_step);

/// Whether `signal` is ignored (SIG_IGN) in the calling process.
int _supervise_signal_is_ignored(int signal);

/// The abbreviated name of a signal without "SIG" ("KILL"), or NULL when it has none.
const char * _Nullable _supervise_signal_abbreviation(int signal);

/// The process's arguments as `main` got them (`argv`, `*count` of them), saved before `main`
/// runs: readable without `/proc`. NULL with 0 in a process whose constructors were not given them.
char * _Nullable const * _Nullable _supervise_arguments(int * _Nonnull count);

#endif

#ifndef SUPERVISE_FILES_H
#define SUPERVISE_FILES_H

// What result files and pipes are made with; Swift's Glibc module does not export them (they
// are GNU extensions).
#include <unistd.h>
#include <sys/syscall.h>
// lgetxattr, for the marks systemd sets on a unit's cgroup.
#include <sys/xattr.h>
#include <spawn.h>
// fstatfs, to tell a kernel's pressure file from a stand-in.
#include <sys/vfs.h>

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34), a GNU extension Swift can't see:
/// the spawned helper closes every descriptor from `from` up.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
static inline int _supervise_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// `open` a directory only as a place to act from, never to read (O_PATH).
static const int _SUPERVISE_O_PATH = 010000000;
/// `fstatat` the descriptor itself (AT_EMPTY_PATH).
static const int _SUPERVISE_AT_EMPTY_PATH = 0x1000;
/// `open` an unnamed file in a directory, gone when its last descriptor closes (O_TMPFILE).
static const int _SUPERVISE_O_TMPFILE = 020200000;
/// `renameat2` fails with EEXIST rather than replace anything.
static const unsigned int _SUPERVISE_RENAME_NOREPLACE = 1;
/// `renameat2` swaps the two names atomically.
static const unsigned int _SUPERVISE_RENAME_EXCHANGE = 2;

/// renameat2(2): 0, or -1 with errno (EINVAL where the file system lacks the flag).
static inline int _supervise_renameat2(int from_directory, const char *from, int to_directory, const char *to,
                                       unsigned int flags) {
    return (int)syscall(SYS_renameat2, from_directory, from, to_directory, to, flags);
}

/// pipe2(2) with O_CLOEXEC: both ends close-on-exec from the start. 0, or -1 with errno.
static inline int _supervise_pipe_cloexec(int ends[2]) {
    return (int)syscall(SYS_pipe2, ends, 02000000 /* O_CLOEXEC */);
}

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/// pidfd_send_signal(2) through a descriptor of a process's `/proc/PID` directory: the signal
/// goes to that process, never to a later one that reuses its pid. 0, or -1 with errno (ESRCH
/// once it is reaped; ENOSYS before Linux 5.1).
static inline int _supervise_signal_process_directory(int directory, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, directory, signal, NULL, 0);
}

/// The file system type (`f_type`) of the file open as `fd`: 0 and `*type`, or -1 with errno.
static inline int _supervise_file_system_type(int fd, long *type) {
    struct statfs info;
    int result = fstatfs(fd, &info);
    if (result == 0) *type = (long)info.f_type;
    return result;
}

#endif

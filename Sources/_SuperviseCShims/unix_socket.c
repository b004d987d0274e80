#define _GNU_SOURCE 1

#include "supervise_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int address(const char *path, struct sockaddr_un *out) {
    memset(out, 0, sizeof *out);
    out->sun_family = AF_UNIX;
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof out->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(out->sun_path, path, length);
    return 0;
}

/* Makes a directory only this process can write, `.supervise-socket-RANDOM` in `parent`; its
   name in `name`. Returns an O_PATH descriptor of the directory made, checked to be ours: a
   directory swapped in between by whoever can write `parent` is refused. */
static int private_directory(int parent, char name[static 64]) {
    for (int attempt = 0; attempt < 16; attempt++) {
        unsigned long long token;
        if (getrandom(&token, sizeof token, GRND_NONBLOCK) != sizeof token) token ^= (unsigned long long)getpid() << 20 ^ attempt;
        snprintf(name, 64, ".supervise-socket-%016llx", token);
        if (mkdirat(parent, name, 0700) != 0) {
            if (errno == EEXIST) continue;
            return -1;
        }
        int directory = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat info;
        if (directory >= 0 && fstat(directory, &info) == 0 && info.st_uid == geteuid()
            && (info.st_mode & 07777) == 0700) {
            return directory;
        }
        int saved = directory >= 0 ? EPERM : errno;
        if (directory >= 0) close(directory);
        errno = saved;
        return -1;
    }
    errno = EEXIST;
    return -1;
}

/* Binds `fd` to `name` in `directory` (bind has no *at form: through the working directory,
   restored after), with the umask that makes it `mode`. Both are the process's: the supervisor
   runs one thread (no Dispatch, no Swift tasks), so nothing else opens a path or makes a file
   meanwhile; `ctl`, the only other caller of this file, binds nothing. */
static int bind_in(int fd, int directory, const char *name, mode_t mode) {
    struct sockaddr_un addr;
    if (address(name, &addr) != 0) return -1;
    int previous_directory = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (previous_directory < 0) return -1;
    int bound = -1;
    if (fchdir(directory) == 0) {
        mode_t previous = umask(0777 & ~mode);
        bound = bind(fd, (struct sockaddr *)&addr, sizeof addr);
        umask(previous);
    }
    int saved = errno;
    if (fchdir(previous_directory) != 0 && bound == 0) saved = errno, bound = -1;
    close(previous_directory);
    errno = saved;
    return bound;
}

int _supervise_unix_listen(const char *path, mode_t mode, gid_t gid, dev_t *device, ino_t *inode) {
    struct sockaddr_un addr;
    if (address(path, &addr) != 0) return -1;
    /* The directory part (".", "/" or up to the last slash) and the name. */
    char parent_path[sizeof addr.sun_path];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t parent_length = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
    memcpy(parent_path, slash ? path : ".", slash ? parent_length : 1);
    parent_path[slash ? parent_length : 1] = 0;
    if (*base == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        errno = EISDIR;
        return -1;
    }
    int parent = open(parent_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) return -1;
    char name[64];
    int directory = private_directory(parent, name);
    if (directory < 0) {
        int saved = errno;
        close(parent);
        errno = saved;
        return -1;
    }
    /* In the private directory nobody else can swap the socket for a link: the group and the
       check of what was made act on the inode bind made. rename then moves that inode into
       place, and refuses to replace anything that appeared there meanwhile. */
    struct stat info;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int ok = fd >= 0 && bind_in(fd, directory, "socket", mode) == 0
        && (gid == (gid_t)-1 || fchownat(directory, "socket", (uid_t)-1, gid, AT_SYMLINK_NOFOLLOW) == 0)
        && fstatat(directory, "socket", &info, AT_SYMLINK_NOFOLLOW) == 0
        && listen(fd, 128) == 0
        && renameat2(directory, "socket", parent, base, RENAME_NOREPLACE) == 0;
    int saved = errno;
    if (!ok) unlinkat(directory, "socket", 0);
    unlinkat(parent, name, AT_REMOVEDIR);
    close(directory);
    close(parent);
    if (!ok) {
        if (fd >= 0) close(fd);
        errno = saved;
        return -1;
    }
    *device = info.st_dev;
    *inode = info.st_ino;
    return fd;
}

int _supervise_unix_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int _supervise_unix_connect(const char *path, long timeout_ms) {
    struct sockaddr_un addr;
    if (address(path, &addr) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (timeout_ms >= 0) {
        /* A listener whose backlog is full (a stopped supervisor) makes connect wait this long. */
        struct timeval limit = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    }
    int result;
    do {
        result = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    } while (result != 0 && errno == EINTR);
    if (result != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int _supervise_peer_credentials(int fd, uid_t *uid, gid_t *gid, gid_t group, int *in_group) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *gid = credentials.gid;
    *in_group = group != (gid_t)-1 && credentials.gid == group;
    if (group == (gid_t)-1 || *in_group) return 0;
    gid_t groups[1024];
    length = sizeof groups;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return 0;
    for (size_t index = 0; index < length / sizeof(gid_t); index++) {
        if (groups[index] == group) *in_group = 1;
    }
    return 0;
}

pid_t _supervise_peer_pid(int fd) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return credentials.pid;
}
